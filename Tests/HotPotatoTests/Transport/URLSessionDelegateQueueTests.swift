#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// The URLSession engine's delegate queue on Linux: events run one at a time in the order they
/// were handed over, and the count of those waiting is exact (the spilling decision reads it).
struct URLSessionDelegateQueueTests {
    @Test func blocksRunInOrderAndAreCountedUntilTheyHaveRun() {
        let queue = URLSessionDelegateQueue(label: "test.delegate")
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        let seen = Locked([Int]())
        done.enter()
        queue.addOperation {
            gate.wait()
            done.leave()
        }
        for index in 0..<500 {
            done.enter()
            queue.addOperation {
                seen.withLock { $0.append(index) }
                done.leave()
            }
        }
        // The first block holds the queue: every block is still waiting, the first included.
        #expect(queue.pendingEvents == 501)
        gate.signal()
        done.wait()
        #expect(seen.withLock { $0 } == Array(0..<500))
        // Each block's count is taken off right after it has run.
        let drained = DispatchSemaphore(value: 0)
        queue.underlyingQueue?.async { drained.signal() }
        drained.wait()
        #expect(queue.pendingEvents == 0)
    }

    /// Past its backlog limit the queue only pauses the thread handing events over: none is lost,
    /// reordered or held up once the queue drains.
    @Test func pastTheBacklogLimitEventsAreStillQueuedInOrder() {
        let queue = URLSessionDelegateQueue(label: "test.delegate", backlogLimit: 2)
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        let seen = Locked([Int]())
        queue.addOperation { gate.wait() }
        for index in 0..<20 {
            done.enter()
            queue.addOperation {
                seen.withLock { $0.append(index) }
                done.leave()
            }
        }
        #expect(queue.pendingEvents == 21)
        gate.signal()
        done.wait()
        #expect(seen.withLock { $0 } == Array(0..<20))
    }

    @Test func anOperationAddedAsSuchRunsInTurnOnTheSameQueue() {
        let queue = URLSessionDelegateQueue(label: "test.delegate")
        let gate = DispatchSemaphore(value: 0)
        let seen = Locked([String]())
        queue.addOperation { gate.wait() }
        queue.addOperation { seen.withLock { $0.append("block") } }
        let operation = BlockOperation { seen.withLock { $0.append("operation") } }
        queue.addOperation(operation)
        gate.signal()
        operation.waitUntilFinished()
        #expect(seen.withLock { $0 } == ["block", "operation"])
    }

    /// FoundationNetworking must hand its events to ``URLSessionDelegateQueue/addOperation(_:)``
    /// (the block form): were it to add operations another way, they would still run, but
    /// uncounted, and a slow handler would never be spilled for.
    @Test(.needsNginx) func urlSessionHandsItsEventsToTheBlockForm() async throws {
        let nginx = try await TestServers.nginx()
        let queue = URLSessionDelegateQueue(label: "test.delegate")
        let delegate = CountingDelegate(queue: queue)
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: queue)
        defer { session.finishTasksAndInvalidate() }
        let counts: [Int] = await withCheckedContinuation { continuation in
            delegate.finished = { continuation.resume(returning: $0) }
            session.dataTask(with: nginx.url("medium.bin")).resume()
        }
        // Each event, while it is being delivered, is counted among the waiting.
        #expect(!counts.isEmpty)
        #expect(counts.allSatisfy { $0 >= 1 }, "\(counts.filter { $0 < 1 }.count) of \(counts.count) events uncounted")
    }
}

/// Records, at each event, how many events the delegate queue counts as waiting.
private final class CountingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let queue: URLSessionDelegateQueue
    private var counts: [Int] = []
    var finished: (@Sendable ([Int]) -> Void)?

    init(queue: URLSessionDelegateQueue) {
        self.queue = queue
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        counts.append(queue.pendingEvents)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        counts.append(queue.pendingEvents)
        finished?(counts)
    }
}
#endif
