import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Cancels the URLSession engine's tasks so that a cancel never races a task's completion inside
/// FoundationNetworking.
///
/// ## The race
///
/// On Linux, `URLSessionTask.cancel()` works in two steps on the task's work queue: the first
/// marks the task as cancelling, the second (queued by the first) stops the protocol and asks
/// the session for the task's delegate. Meanwhile the task may complete: its completion, on the
/// delegate queue, calls `urlSession(_:task:didCompleteWithError:)`, marks the task completed and
/// queues its removal from the session's registry on the session's work queue. When that removal
/// runs between the two steps, the second finds no task and FoundationNetworking stops the
/// process ("Trying to access a behaviour for a task that in not in the registry"). Nothing in
/// URLSession's public API can tell whether a task is about to complete, and a body of unknown
/// length gives the transfer no hint either.
///
/// ## The handshake
///
/// Every task of the engine is registered before it is resumed, and every cancel goes through
/// ``cancel(_:)``, which cancels only a task that has not reported its completion, under the same
/// lock ``didComplete(_:)`` takes. So either the completion is seen first (and the task is not
/// cancelled), or the cancel's first step has run — on the calling thread in older
/// FoundationNetworking, queued on the task's work queue in newer — before the completion is
/// noted. In the second case ``didComplete(_:)``, which runs inside the completion before the
/// task leaves the registry, waits until the task's work queue has run both steps: the task's
/// `priority` is read on that queue (`workQueue.sync`), once to pass the first step and once more
/// to pass the second, which the first queued behind it. The delegate queue is held for those
/// two steps, only for a task that was cancelled as it completed.
///
/// On Apple platforms URLSession has no such race; the ledger is kept there too (it is cheap) but
/// nothing waits.
final class URLSessionTaskCanceller: @unchecked Sendable {
    private struct Ledger {
        /// The tasks registered and not yet reported complete, by identifier.
        var live: [Int: URLSessionTask] = [:]
        /// The live tasks whose `cancel()` has been called.
        var cancelled: Set<Int> = []
    }

    private let ledger = Locked(Ledger())

    /// Notes a task about to be resumed. Call it before `resume()`: a task not registered is
    /// never cancelled.
    func register(_ task: URLSessionTask) {
        ledger.withLock { $0.live[task.taskIdentifier] = task }
    }

    /// Cancels `task` unless it has reported its completion (or was never registered). Calls
    /// `cancel()` on the calling thread, which may block while URLSession's work queue is busy:
    /// call it from a thread that may wait.
    func cancel(_ task: URLSessionTask) {
        ledger.withLock { ledger in
            let identifier = task.taskIdentifier
            guard ledger.live[identifier] != nil, ledger.cancelled.insert(identifier).inserted else { return }
            task.cancel()
        }
    }

    /// Cancels every task that has not reported its completion (the session is being
    /// invalidated); see ``cancel(_:)``.
    func cancelAll() {
        ledger.withLock { ledger in
            for (identifier, task) in ledger.live where ledger.cancelled.insert(identifier).inserted {
                task.cancel()
            }
        }
    }

    /// Notes that `task` completed. Call it first thing in `urlSession(_:task:didCompleteWithError:)`:
    /// when the task was cancelled as it completed, this returns only once the cancel has finished
    /// inside URLSession (see the type's documentation).
    func didComplete(_ task: URLSessionTask) {
        let wasCancelled = ledger.withLock { ledger -> Bool in
            let identifier = task.taskIdentifier
            ledger.live[identifier] = nil
            return ledger.cancelled.remove(identifier) != nil
        }
        #if canImport(FoundationNetworking)
        if wasCancelled {
            // Each read is a `sync` on the task's work queue: the first returns after the cancel's
            // first step, the second after the step that step queued.
            _ = task.priority
            _ = task.priority
        }
        #endif
    }

    /// The tasks registered and not yet reported complete (for tests).
    var liveCount: Int { ledger.withLock { $0.live.count } }
}
