import Foundation

/// The events of one libcurl transfer, handed from the engine's I/O thread, which receives them
/// from libcurl, to a ``DeliveryPool`` thread, which delivers them to the ``TransferSink`` in order.
///
/// The I/O thread never calls a handler: it only queues here, and the handoff submits itself to
/// the pool whenever it has events and no thread is delivering them. A handler may take as long
/// as it likes, or hold its deliveries (``DeliveryHold``), without holding back any other
/// transfer. What bounds memory is the pause: once ``highWaterMark`` body bytes wait here,
/// ``offer(_:)`` refuses the next ones, the write callback returns `CURL_WRITEFUNC_PAUSE`
/// (libcurl keeps those bytes and stops reading: over HTTP/2 the stream's window closes, over
/// HTTP/1.1 the socket is no longer read and TCP holds the rest on the server), and once the
/// queue is down to ``lowWaterMark`` the delivering thread asks the I/O thread to resume it.
///
/// Body bytes queued one after another are gathered into one chunk of up to ``chunkLimit``
/// bytes — a copy of libcurl's buffer, the only one on the way to the handler — so that a
/// handler that fell behind catches up in a few calls. Nothing waits to be gathered: a chunk goes
/// out as soon as a thread takes it.
final class CurlHandoff: DeliveryJob, DeliveryHold, @unchecked Sendable {
    enum Event {
        case head(ResponseHead)
        case body(Data)
        /// The last event: how the transfer ended.
        case ending(CurlTransfer.Ending)
    }

    /// Body bytes queued before the transfer is paused.
    static let highWaterMark = 1024 * 1024
    /// Queued body bytes at or under which a paused transfer is resumed.
    static let lowWaterMark = 256 * 1024
    /// The largest chunk queued bytes are gathered into.
    static let chunkLimit = 512 * 1024
    /// The most events one turn on a pool thread delivers before it lets other transfers go first.
    static let eventsPerTurn = 64

    /// Where the events go.
    private let sink: any TransferSink
    private let pool: DeliveryPool
    /// The transfer, to ask the I/O thread to resume or stop it; weak, since the transfer owns
    /// the handoff, and its last events may be delivered after the transfer is gone.
    weak var transfer: CurlTransfer?

    private let lock = NSLock()
    // Guarded by `lock`.
    private var events: [Event] = []
    private var nextEvent = 0
    private var queuedBytes = 0
    /// The write callback paused the transfer and no resume was asked for since.
    private var paused = false
    /// Submitted to the pool, or being delivered: no second thread may take it.
    private var scheduled = false
    /// A pool thread is delivering an event it took.
    private var delivering = false
    /// The handler holds its deliveries (see ``DeliveryHold``).
    private var held = false
    /// The ending was queued.
    private var ended = false

    // Touched only by the delivering thread.
    /// The sink said stop: the rest is dropped, but for the ending.
    private var stopped = false

    init(sink: any TransferSink, pool: DeliveryPool = .shared) {
        self.sink = sink
        self.pool = pool
    }

    // MARK: - The I/O thread

    /// Queues a head or the ending.
    func push(_ event: Event) {
        lock.lock()
        if case .ending = event { ended = true }
        events.append(event)
        let submit = scheduleIfNeeded()
        lock.unlock()
        if submit { pool.submit(self) }
    }

    /// Queues a copy of body bytes and returns `true`, or, with ``highWaterMark`` bytes waiting
    /// already, marks the transfer paused and returns `false`: the write callback then returns
    /// `CURL_WRITEFUNC_PAUSE`, and libcurl offers the same bytes again once resumed. Bytes offered
    /// to an empty queue are always taken, however many.
    func offer(_ bytes: UnsafeRawBufferPointer) -> Bool {
        lock.lock()
        if queuedBytes > 0, queuedBytes + bytes.count > Self.highWaterMark {
            paused = true
            lock.unlock()
            return false
        }
        queuedBytes += bytes.count
        if nextEvent < events.count, case .body(var chunk) = events[events.count - 1],
           chunk.count + bytes.count <= Self.chunkLimit {
            // Moved out of the array first, so that appending does not copy the chunk.
            events[events.count - 1] = .body(Data())
            chunk.append(contentsOf: bytes)
            events[events.count - 1] = .body(chunk)
        } else {
            var chunk = Data(capacity: max(bytes.count, min(Self.chunkLimit, 64 * 1024)))
            chunk.append(contentsOf: bytes)
            events.append(.body(chunk))
        }
        let submit = scheduleIfNeeded()
        lock.unlock()
        if submit { pool.submit(self) }
        return true
    }

    /// Whether the transfer waits for its handler rather than for the network: events are queued,
    /// one is being delivered, the transfer is paused, or the handler holds it. The idle timeout
    /// does not run then.
    var isWaitingForDelivery: Bool {
        lock.lock()
        defer { lock.unlock() }
        return nextEvent < events.count || delivering || paused || held
    }

    /// Whether the ending was queued: the transfer is no longer the I/O thread's.
    var hasEnded: Bool {
        lock.lock()
        defer { lock.unlock() }
        return ended
    }

    // MARK: - Holding

    func hold() {
        lock.lock()
        held = true
        lock.unlock()
    }

    func release() {
        lock.lock()
        held = false
        let submit = scheduleIfNeeded()
        lock.unlock()
        if submit { pool.submit(self) }
    }

    // MARK: - The delivering thread

    func run() {
        for _ in 0..<Self.eventsPerTurn {
            guard let (event, resumeNow) = take() else { return }
            if resumeNow { transfer?.resumeReceiving() }
            deliver(event)
            lock.lock()
            delivering = false
            lock.unlock()
        }
        // A turn's worth delivered: go to the back of the line if more waits.
        lock.lock()
        let more = nextEvent < events.count && !held
        if !more { scheduled = false }
        lock.unlock()
        if more { pool.submit(self) }
    }

    /// The next event and whether the paused transfer is to be resumed now (the queue is down to
    /// ``lowWaterMark``); `nil` when there is none or the handler holds its deliveries, the turn
    /// then being over.
    private func take() -> (Event, Bool)? {
        lock.lock()
        defer { lock.unlock() }
        guard nextEvent < events.count, !held else {
            scheduled = false
            return nil
        }
        let event = events[nextEvent]
        events[nextEvent] = .body(Data())
        nextEvent += 1
        if nextEvent == events.count {
            events.removeAll(keepingCapacity: true)
            nextEvent = 0
        }
        if case .body(let chunk) = event { queuedBytes -= chunk.count }
        let resumeNow = paused && queuedBytes <= Self.lowWaterMark
        if resumeNow { paused = false }
        delivering = true
        return (event, resumeNow)
    }

    private func deliver(_ event: Event) {
        switch event {
        case .head(let head):
            if !stopped, !sink.receive(head: head) { stopDelivering() }
        case .body(let chunk):
            if !stopped, !sink.receive(chunk) { stopDelivering() }
        case .ending(let ending):
            ending.report(to: sink)
        }
    }

    private func stopDelivering() {
        stopped = true
        transfer?.stop()
    }

    /// Whether the caller, holding the lock, must submit the handoff: it has events, no thread
    /// has it, and the handler does not hold it. Marks it scheduled if so.
    private func scheduleIfNeeded() -> Bool {
        guard !scheduled, !held, nextEvent < events.count else { return false }
        scheduled = true
        return true
    }
}
