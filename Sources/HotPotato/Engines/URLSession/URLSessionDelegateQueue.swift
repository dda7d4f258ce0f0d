import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
import Synchronization

/// The URLSession engine's delegate queue on Linux: a serial dispatch queue that URLSession's
/// events go straight to, in the order URLSession hands them over.
///
/// FoundationNetworking hands every delegate event (a response, each chunk of at most 16 KiB,
/// a completion) to the session's delegate queue with `addOperation(_:)` and a block. A plain
/// `OperationQueue` wraps each block in a `BlockOperation` (two locks and a condition of its
/// own, a dispatch work item, state changes under locks), and with one operation at a time it
/// dispatches each only once the one before has finished — often onto another thread. Here the
/// block goes to one serial dispatch queue at once: events that arrive together run one after the
/// other on the thread that drains the queue, and the count of those waiting
/// (``pendingEvents``) costs a load instead of a walk of the queue.
///
/// Operations added any other way (nobody does) go through `OperationQueue`'s own machinery,
/// onto the same serial queue (its `underlyingQueue`).
///
/// ## When the queue falls far behind
///
/// A slow handler is spilled for (see ``URLSessionTransfer``), which keeps this queue's backlog
/// near the high-water mark. But a fast handler can fall behind too, when the thread that drains
/// this queue gets less of the CPU than URLSession's receiving thread (two cores shared with the
/// handler's consumer and the server), and URLSession's chunks then pile up here in memory. Past
/// `backlogLimit` events, the thread handing an event over (URLSession's) therefore pauses for
/// ``pauseMicroseconds`` after queueing it, which leaves the CPU to this queue and slows
/// URLSession's reading, and so TCP holds the rest. The pause is bounded, never a wait for this
/// queue, so it cannot deadlock with a delegate call that waits for URLSession.
final class URLSessionDelegateQueue: OperationQueue, @unchecked Sendable {
    /// How long the handing-over thread pauses per event past the backlog limit.
    static let pauseMicroseconds: UInt32 = 200

    private let serial: DispatchQueue
    private let pending = Atomic<Int>(0)
    private let backlogLimit: Int

    /// - Parameter backlogLimit: The events waiting past which URLSession's thread pauses after
    ///   handing one over; `Int.max` for never.
    init(label: String, backlogLimit: Int = .max) {
        serial = DispatchQueue(label: label)
        self.backlogLimit = backlogLimit
        super.init()
        name = label
        underlyingQueue = serial
    }

    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        let waiting = pending.add(1, ordering: .relaxed).newValue
        serial.async {
            block()
            self.pending.subtract(1, ordering: .relaxed)
        }
        if waiting > backlogLimit { usleep(Self.pauseMicroseconds) }
    }

    /// The events handed over and not yet delivered, the one being delivered included.
    var pendingEvents: Int {
        pending.load(ordering: .relaxed)
    }
}
#endif
