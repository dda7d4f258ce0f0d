import Foundation

/// A task executor with a thread of its own, on which a one-shot body's `AsyncSequence` is
/// iterated: the iteration never waits for Swift's cooperative threads, which may all be blocked
/// — on Linux, a thread making a URLSession task waits for FoundationNetworking's one work queue,
/// and that queue waits, in the body stream's read, for the sequence's next element.
///
/// The thread runs until ``finish()`` (called as the iteration ends) and the jobs enqueued until
/// then have run.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
final class BodyProducerExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var jobs: [UnownedJob] = []
    private var finished = false

    init() {
        let thread = Thread { [self] in run() }
        thread.name = "HotPotato.body-producer"
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Lets the thread end once it has run the jobs enqueued so far.
    func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty && !finished { condition.wait() }
            guard !jobs.isEmpty else {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
