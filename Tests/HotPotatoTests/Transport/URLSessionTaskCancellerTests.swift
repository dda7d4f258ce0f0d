import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// The URLSession engine's cancels go through a ledger that never cancels a task after it has
/// reported its completion, and that makes a completion racing a cancel wait until the cancel
/// has finished inside URLSession (on Linux, the cancel's second step running after the task left
/// the session's registry stopped the process).
@Suite struct URLSessionTaskCancellerTests {
    /// A task that stalls (the fault server sends a head and 10 of 1 000 bytes, then waits), made
    /// on a session without a delegate.
    private func stallingTask(_ server: FaultServer, _ session: URLSession) -> URLSessionDataTask {
        session.dataTask(with: server.url("/stall?seconds=5"))
    }

    /// A session configured as the engine configures its own: no URLCache (with one, a task
    /// looks itself up in the cache on another queue before it makes its protocol, and the
    /// cancel's second step waits for that lookup too).
    private func engineLikeSession() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        return URLSession(configuration: configuration)
    }

    @Test func aTaskNeverRegisteredOrAlreadyCompleteIsNotCancelled() async throws {
        let server = try await TestServers.fault()
        let session = engineLikeSession()
        defer { session.invalidateAndCancel() }
        let canceller = URLSessionTaskCanceller()

        let unregistered = stallingTask(server, session)
        canceller.cancel(unregistered)
        #expect(unregistered.state == .suspended, "a task the ledger does not know is left alone")

        let completed = stallingTask(server, session)
        canceller.register(completed)
        #expect(canceller.liveCount == 1)
        canceller.didComplete(completed)
        #expect(canceller.liveCount == 0)
        canceller.cancel(completed)
        canceller.cancelAll()
        #expect(completed.state == .suspended, "a task that reported its completion is never cancelled")
    }

    /// The handshake itself: a task is cancelled, then reports its completion at once. When
    /// `didComplete` returns, URLSession has run the cancel to its end — on Linux the step that
    /// records the cancellation error on the task is the second of two on the task's work queue,
    /// queued by the first, which is exactly what the completion must not overtake. (Without the
    /// wait the error is not there yet in nearly every round.)
    ///
    /// A round whose cancel did not take — the task ended some other way, as the stall ends after
    /// a second — has nothing to check; most rounds must take.
    @Test func aCompletionRacingACancelReturnsOnlyOnceTheCancelHasFinished() async throws {
        let server = try await TestServers.fault()
        let session = engineLikeSession()
        defer { session.invalidateAndCancel() }
        let rounds = 20
        var cancelledRounds = 0
        for round in 0..<rounds {
            let canceller = URLSessionTaskCanceller()
            let task = session.dataTask(with: server.url("/stall?seconds=1"))
            canceller.register(task)
            task.resume()
            let stateBefore = task.state
            canceller.cancel(task)
            canceller.didComplete(task)
            let errorOnReturn = task.error
            #expect(canceller.liveCount == 0)
            #if canImport(FoundationNetworking)
            // How the task finally ended, once URLSession is done with it.
            let settled = try await offThePool { () -> Bool in
                let deadline = Date().addingTimeInterval(10)
                while task.state != .completed && Date() < deadline { usleep(1_000) }
                return task.state == .completed
            }
            #expect(settled, "round \(round): the task ended")
            guard (task.error as? URLError)?.code == .cancelled else { continue }
            cancelledRounds += 1
            #expect(
                (errorOnReturn as? URLError)?.code == .cancelled,
                "round \(round): the cancel had finished when didComplete returned (state before the cancel: \(stateBefore.rawValue))")
            #endif
        }
        #if canImport(FoundationNetworking)
        #expect(cancelledRounds >= rounds / 2, "\(cancelledRounds) of \(rounds) cancels took")
        #endif
    }

    /// Many tasks cancelled at once (a session invalidated with calls in flight): each is
    /// cancelled exactly once and every one of them reports its completion.
    @Test func cancelAllCancelsEveryLiveTaskOnce() async throws {
        let server = try await TestServers.fault()
        let session = engineLikeSession()
        defer { session.finishTasksAndInvalidate() }
        let canceller = URLSessionTaskCanceller()
        let endings = Locked([URLError.Code?]())
        let ended = DispatchGroup()
        var tasks: [URLSessionDataTask] = []
        for _ in 0..<8 {
            ended.enter()
            // A completion handler, so that each task says how it ended.
            let task = session.dataTask(with: server.url("/stall?seconds=5")) { _, _, error in
                endings.withLock { $0.append((error as? URLError)?.code) }
                ended.leave()
            }
            canceller.register(task)
            task.resume()
            tasks.append(task)
        }
        canceller.cancelAll()
        canceller.cancelAll()
        let result = try await offThePool { ended.wait(timeout: .now() + 10) }
        #expect(result == .success, "every task ended")
        let codes = endings.withLock { $0 }
        // Every task ended in an error: none ran its 5 s stall to a response.
        #expect(codes.count == tasks.count && codes.allSatisfy { $0 != nil }, "\(codes)")
        #if canImport(FoundationNetworking)
        // FoundationNetworking may report a task cancelled just as it starts as `.unknown` rather
        // than `.cancelled` (seen under ThreadSanitizer, one task in eight); most say cancelled.
        #expect(codes.filter { $0 == .cancelled }.count >= tasks.count / 2, "\(codes)")
        #expect(codes.allSatisfy { $0 == .cancelled || $0 == .unknown }, "\(codes)")
        #else
        #expect(codes == Array(repeating: .cancelled, count: tasks.count))
        #endif
        for task in tasks { canceller.didComplete(task) }
        #expect(canceller.liveCount == 0)
    }
}
