import Foundation
import Testing
@testable import HotPotato

/// Cancellation is authoritative: the call completes promptly with `.cancelled`, the handler
/// cleans up (no partial file), and nothing waits for URLSession.
@Suite(.needsNginx, .serialized) struct CancellationTests {
    /// "Promptly", as the test sees it: well under the seconds a 256 MiB download through a slow
    /// handler takes, with room for a 2-core machine busy with the rest of the suite.
    static let prompt: TimeInterval = 3

    enum Point: String, CaseIterable, Sendable {
        case immediately, afterTheHead, midway, nearTheEnd
    }

    @Test(arguments: allEngines, Point.allCases)
    func cancellingADownload(engine: Session.Engine, at point: Point) async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let size = Int64(NginxServer.bigFileSize)
        let threshold: Int64 = point == .afterTheHead ? 1 : point == .midway ? size / 2 : size * 9 / 10
        let session = testSession(engine: engine) { $0.progressInterval = 0.01 }
        // The cancel comes from the progress callback, on a queue of its own, so that it lands at
        // the intended point however busy the test process is; the latency is measured from that
        // cancel() to the moment the call settles.
        let call = Locked<Call<URL>?>(nil)
        let cancelledAt = Locked<Date?>(nil)
        let cancelOnce: @Sendable () -> Void = {
            guard let current = call.withLock({ $0 }) else { return }
            let first = cancelledAt.withLock { date -> Bool in
                defer { if date == nil { date = Date() } }
                return date == nil
            }
            if first { current.cancel() }
        }
        let started = session.get(nginx.url("big.bin"))
            .handled(by: SlowFileWriter(destination: scratch.file("big.bin")))
            .onProgress(queue: DispatchQueue(label: "canceller")) { progress in
                if point != .immediately, progress.bytesReceived >= threshold { cancelOnce() }
            }
            .start()
        let settledAt = Locked<Date?>(nil)
        started.observe { _ in settledAt.withLock { $0 = Date() } }
        call.withLock { $0 = started }
        if point == .immediately { cancelOnce() }
        let error = await expectFailure { try await started.response() }
        #expect(error?.code == .cancelled, "\(error.map { "\($0)" } ?? "the download completed first")")
        if let cancelled = cancelledAt.withLock({ $0 }), let settled = settledAt.withLock({ $0 }) {
            let latency = settled.timeIntervalSince(cancelled)
            #expect(latency < 0.5, "settled \(latency) s after cancel()")
        }
        #expect(try scratch.entries().isEmpty, "no partial file")
        #expect(openDescriptors(under: scratch.url).isEmpty)
    }

    @Test(arguments: allEngines) func cancellingTheAwaitingTask(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let session = testSession(engine: engine)
        let request = session.get(nginx.url("big.bin")).handled(by: SlowFileWriter(destination: scratch.file("big.bin")))
        let task = Task { try await request.response() }
        try await Task.sleep(for: .milliseconds(200))
        let cancelled = Date()
        task.cancel()
        let result = await task.result
        let latency = Date().timeIntervalSince(cancelled)
        #expect((result.failure as? HotPotatoError)?.code == .cancelled)
        #expect(latency < Self.prompt)
        #expect(try scratch.entries().isEmpty)
    }

    @Test(arguments: allEngines) func cancelWaitsOnlyForTheHandlerCallInProgress(engine: Session.Engine) async throws {
        /// Blocks on its first chunk until the test has cancelled.
        final class BlockingHandler: SelectiveDiscarder<Void> {
            let entered: DispatchSemaphore
            init(entered: DispatchSemaphore) {
                self.entered = entered
                super.init()
            }
            override func receive(_ chunk: Data) throws {
                entered.signal()
                usleep(300_000)
            }
        }
        let nginx = try await TestServers.nginx()
        let entered = DispatchSemaphore(value: 0)
        let call = testSession(engine: engine).get(nginx.url("big.bin")).handled(by: BlockingHandler(entered: entered)).start()
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { entered.wait(); continuation.resume() }
        }
        let cancelled = Date()
        call.cancel()
        let error = await expectFailure { try await call.response() }
        let latency = Date().timeIntervalSince(cancelled)
        #expect(error?.code == .cancelled)
        #expect(latency < Self.prompt, "the 300 ms handler call finishes, then the call completes: \(latency) s")
    }

    /// A cancel that lands while the call is starting, on a body small enough to finish at once:
    /// on Linux, URLSession with a `URLCache` crashes the process in this race
    /// ("Trying to access a behaviour for a task that in not in the registry"), so the engine
    /// runs URLSession without one. Many rounds, since each one hits the window only sometimes.
    @Test(arguments: allEngines) func cancellingCallsAsTheyStartNeverCrashes(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let session = testSession(engine: engine)
        var cancelled = 0
        for round in 0..<400 {
            let call = session.get(nginx.url("small.json")).asData().start()
            if round % 3 == 1 { try await Task.sleep(for: .microseconds(round % 7 * 50)) }
            DispatchQueue.global().async { call.cancel() }
            do {
                let response = try await call.response()
                #expect(!response.content.isEmpty)
            } catch {
                #expect(error.code == .cancelled, "\(error)")
                cancelled += 1
            }
        }
        #expect(cancelled > 0, "no cancel landed before its call completed")
    }

    @Test(arguments: allEngines) func cancellingACompletedCallChangesNothing(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let call = testSession(engine: engine).get(nginx.url("small.json")).asJSON().start()
        let json = try await call.response().content
        call.cancel()
        #expect(try await call.response().content == json)
        #expect(call.isComplete)
    }
}
