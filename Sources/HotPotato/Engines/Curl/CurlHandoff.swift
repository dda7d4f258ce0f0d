import Foundation

/// The events of one multiplexed transfer, handed from the multi thread, which receives them
/// from libcurl, to the worker thread that delivers them to the ``TransferSink``, in order.
///
/// The multi thread never calls a handler: it only queues. The worker may block in a handler for
/// as long as the handler likes (``TransportEngine/deliveriesMayBlock``) without holding back any
/// other transfer of the multi handle. What bounds memory is the pause: once ``highWaterMark``
/// body bytes wait here, ``offer(_:)`` refuses the next ones, the write callback returns
/// `CURL_WRITEFUNC_PAUSE` (libcurl keeps those bytes and stops the stream: over HTTP/2 its
/// window drops to 0, over HTTP/1.1 the socket is no longer read), and once the worker has
/// taken the queue down to ``lowWaterMark`` it asks the multi thread to resume the stream.
///
/// Body bytes queued one after another are gathered into one chunk of up to ``chunkLimit``
/// bytes, so that a worker that fell behind catches up in a few handler calls rather than one
/// per HTTP/2 frame. Nothing waits to be gathered: a chunk goes out as soon as the worker asks.
final class CurlHandoff: @unchecked Sendable {
    enum Event {
        case head(ResponseHead)
        case body(Data)
        /// The last event: how the transfer ended.
        case ending(CurlTransfer.Ending)
    }

    /// Body bytes queued before the stream is paused.
    static let highWaterMark = 1024 * 1024
    /// Queued body bytes at or under which a paused stream is resumed.
    static let lowWaterMark = 256 * 1024
    /// The largest chunk queued bytes are gathered into.
    static let chunkLimit = 256 * 1024

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var events: [Event] = []
    private var queuedBytes = 0
    /// Whether the write callback paused the stream and no resume was asked for since.
    private var paused = false
    /// Whether the worker is delivering an event it took.
    private var delivering = false
    /// Whether the ending was queued.
    private var ended = false

    // MARK: - Multi thread

    /// Queues a head or the ending.
    func push(_ event: Event) {
        condition.lock()
        if case .ending = event { ended = true }
        events.append(event)
        condition.signal()
        condition.unlock()
    }

    /// Queues a copy of body bytes and returns `true`, or, with ``highWaterMark`` bytes waiting
    /// already, marks the stream paused and returns `false`: the write callback then returns
    /// `CURL_WRITEFUNC_PAUSE`, and libcurl offers the same bytes again once resumed. Bytes
    /// offered to an empty queue are always taken, however many.
    func offer(_ bytes: UnsafeRawBufferPointer) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if queuedBytes > 0, queuedBytes + bytes.count > Self.highWaterMark {
            paused = true
            return false
        }
        queuedBytes += bytes.count
        if case .body(var chunk)? = events.last, chunk.count + bytes.count <= Self.chunkLimit {
            // Moved out of the array first, so that appending does not copy the chunk.
            events.removeLast()
            chunk.append(contentsOf: bytes)
            events.append(.body(chunk))
        } else {
            events.append(.body(Data(bytes)))
        }
        condition.signal()
        return true
    }

    /// Whether the transfer waits for its worker rather than for the network: events are queued,
    /// the worker is delivering one, or the stream is paused. The idle timeout does not run then,
    /// as it does not while a handler holds an easy transfer's callback.
    var isWaitingForDelivery: Bool {
        condition.lock()
        defer { condition.unlock() }
        return !events.isEmpty || delivering || paused
    }

    /// Whether the ending was queued: the transfer is no longer the multi handle's.
    var hasEnded: Bool {
        condition.lock()
        defer { condition.unlock() }
        return ended
    }

    // MARK: - Worker thread

    /// The next event, waiting for one, and whether the paused stream should be resumed now
    /// (the queue is down to ``lowWaterMark``): the caller then asks the multi thread to.
    func next() -> (event: Event, resume: Bool) {
        condition.lock()
        defer { condition.unlock() }
        delivering = false
        while events.isEmpty { condition.wait() }
        let event = events.removeFirst()
        if case .body(let chunk) = event { queuedBytes -= chunk.count }
        let resume = paused && queuedBytes <= Self.lowWaterMark
        if resume { paused = false }
        delivering = true
        return (event, resume)
    }
}
