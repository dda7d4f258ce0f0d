import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
import Synchronization

/// The URLSession engine's delegate queue on Linux: a serial dispatch queue that URLSession's
/// events go straight to, in the order URLSession hands them over.
///
/// FoundationNetworking hands every delegate event (a response, each chunk of at most 16 KiB,
/// a completion) to the session's delegate queue with `addOperation(_:)` and a block. A plain
/// `OperationQueue` wraps each block in a `BlockOperation` (three locks and a condition of its
/// own, a dispatch work item, state changes under locks), and with one operation at a time it
/// dispatches each only once the one before has finished — often onto another thread. Here the
/// block goes to one serial dispatch queue at once: events that arrive together run one after the
/// other on the thread that drains the queue, and the count of those waiting
/// (``pendingEvents``) costs a load instead of a walk of the queue.
///
/// Operations added any other way (nobody does) go through `OperationQueue`'s own machinery,
/// onto the same serial queue (its `underlyingQueue`).
final class URLSessionDelegateQueue: OperationQueue, @unchecked Sendable {
    private let serial: DispatchQueue
    private let pending = Atomic<Int>(0)

    init(label: String) {
        serial = DispatchQueue(label: label)
        super.init()
        name = label
        underlyingQueue = serial
    }

    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        pending.add(1, ordering: .relaxed)
        serial.async {
            block()
            self.pending.subtract(1, ordering: .relaxed)
        }
    }

    /// The events handed over and not yet delivered, the one being delivered included.
    var pendingEvents: Int {
        pending.load(ordering: .relaxed)
    }
}
#endif
