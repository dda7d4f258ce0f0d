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
/// Body bytes queued one after another are gathered into chunks of up to ``chunkLimit``
/// bytes — a copy of libcurl's buffer, the only one on the way to the handler — so that a
/// handler that fell behind catches up in a few calls. Nothing waits to be gathered: a chunk goes
/// out as soon as a thread takes it. The limit is small on purpose: a chunk is written on one
/// core and read on another, and one that still sits in the caches when the handler copies it
/// (into a file's pages, say) costs a fraction of one that does not — 512 KiB chunks made the
/// kernel's copy into the page cache four times as expensive as 64 KiB ones (a 1 GiB download
/// took 1.8 s of CPU instead of 1.1 s), and a read larger than the limit is split.
final class CurlHandoff: DeliveryJob, DeliveryHold, @unchecked Sendable {
    enum Event {
        case head(ResponseHead)
        case body(Data)
        /// The last event: how the transfer ended.
        case ending(TransferEnding)
    }

    /// Body bytes queued before the transfer is paused.
    static let highWaterMark = 1024 * 1024
    /// Queued body bytes at or under which a paused transfer is resumed.
    static let lowWaterMark = 256 * 1024
    /// The largest chunk queued bytes are gathered into, or a large read split into.
    static let chunkLimit = 64 * 1024
    /// A read this small or smaller tops up the last queued chunk rather than making its own.
    static let smallRead = 16 * 1024
    /// The most body bytes of a response ``flush()`` delivers on the I/O thread.
    static let wholeResponseLimit = 64 * 1024
    /// Queued bytes at which a batching handoff (see ``offer(_:batching:)``) no longer waits for
    /// the I/O thread's turn to end before it goes to a delivery thread.
    static let batchLimit = 256 * 1024

    /// What became of bytes offered.
    enum Offer {
        /// Queued, and on their way to a delivery thread (or to the one delivering already).
        case queued
        /// Queued, but left for the I/O thread to send on with ``flush()`` at the end of its turn.
        case batched
        /// Not taken: ``highWaterMark`` bytes wait already, and the transfer is to pause.
        case refused
    }
    /// The most events one turn on a pool thread delivers before it lets other transfers go first.
    static let eventsPerTurn = 64

    /// Where the events go.
    private let sink: any TransferSink
    /// The handler runs HotPotato's code only: a small response that arrived whole may be
    /// delivered on the I/O thread (see ``flush()``).
    let deliversWholeResponses: Bool
    /// The transfer runs in a download lane (a loop of its own, see ``CurlEventLoop``): each
    /// event is delivered on the lane's thread as it comes, body bytes straight from libcurl's
    /// buffer, unless events are queued already or the handler holds its deliveries.
    let deliversInline: Bool
    private let pool: DeliveryPool
    /// The transfer, to ask the I/O thread to resume or stop it; weak, since the transfer owns
    /// the handoff, and its last events may be delivered after the transfer is gone.
    weak var transfer: CurlTransfer?

    private let lock = AdaptiveLock()
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
    /// The response came over HTTP/2 or later, where a hold is not honoured (see ``hold()``).
    private var multiplexed = false
    /// The ending was queued.
    private var ended = false
    /// Body bytes were batched and the I/O thread has yet to ``flush()`` them.
    private var batched = false
    /// Every body byte offered and taken.
    private var totalBodyBytes = 0
    /// A thread has taken an event.
    private var deliveredAny = false

    /// Whether a content-coded body is decoded here (``ContentDecoder``): the request asked for
    /// the codings the engine decodes, or for none of its own. Set by the transfer as each of its
    /// requests is configured, before that request's head is queued.
    var decodesContent = false

    // Touched only by the delivering thread.
    /// The sink said stop: the rest is dropped, but for the ending.
    private var stopped = false
    /// The decoder of the response's body, when it is content-coded and decoded here.
    private var decoder: ContentDecoder?

    init(sink: any TransferSink, pool: DeliveryPool = .shared, deliversInline: Bool = false) {
        self.sink = sink
        self.pool = pool
        self.deliversInline = deliversInline
        deliversWholeResponses = sink.runsOnlyLibraryCode && !deliversInline
    }

    // MARK: - The I/O thread

    /// Queues a head or the ending, and sends it on to a delivery thread.
    func push(_ event: Event) {
        _ = push(event, batching: false)
    }

    /// Queues a head or the ending. With `batching`, for a transfer that may be delivered on the
    /// I/O thread (see ``flush()``), it waits for the I/O thread's ``flush()`` instead of going to
    /// a delivery thread at once: returns `true` when the caller must arrange that flush (the
    /// first event left waiting), as for ``Offer/batched``.
    func push(_ event: Event, batching: Bool) -> Bool {
        lock.lock()
        if case .ending = event { ended = true }
        if deliversInline, beginInlineTurn() {
            deliver(event)
            endInlineTurn()
            return false
        }
        events.append(event)
        if batching, deliversWholeResponses, !scheduled {
            let first = !batched
            batched = true
            lock.unlock()
            return first
        }
        let submit = scheduleIfNeeded()
        lock.unlock()
        if submit { pool.submit(self) }
        return false
    }

    /// Queues a copy of body bytes, or, with ``highWaterMark`` bytes waiting already, marks the
    /// transfer paused and refuses them: the write callback then returns `CURL_WRITEFUNC_PAUSE`,
    /// and libcurl offers the same bytes again once resumed. Bytes offered to an empty queue are
    /// always taken, however many.
    ///
    /// A small read tops up the last chunk still queued (a few bytes copied under the lock); a
    /// larger one is copied into chunks of its own outside the lock, each queued as soon as it is
    /// made, so that the thread delivering the chunk before never waits for the copy.
    ///
    /// With `batching` (a transfer whose handler takes bulk), bytes that find no delivery thread
    /// at work wait for more, up to ``batchLimit``, rather than wake one for each read: the result
    /// is then ``Offer/batched`` the first time, and the I/O thread must call ``flush()`` before it
    /// next waits for the network. A download's chunks then cost one wake-up per few reads, not
    /// one each.
    func offer(_ bytes: UnsafeRawBufferPointer, batching: Bool = false) -> Offer {
        lock.lock()
        if deliversInline, beginInlineTurn() {
            // No count kept: it serves only ``flush()``'s whole-response rule, which a lane never uses.
            if !stopped { deliverBody(bytes) }
            endInlineTurn()
            return .queued
        }
        if queuedBytes > 0, queuedBytes + bytes.count > Self.highWaterMark {
            paused = true
            lock.unlock()
            return .refused
        }
        // Counted now: the pool thread may resume a paused transfer only once these are gone too.
        queuedBytes += bytes.count
        totalBodyBytes += bytes.count
        if bytes.count <= Self.smallRead, nextEvent < events.count, case .body(var chunk) = events[events.count - 1],
           chunk.count + bytes.count <= Self.chunkLimit {
            // Moved out of the array first, so that appending does not copy the chunk.
            events[events.count - 1] = .body(Data())
            chunk.append(contentsOf: bytes)
            events[events.count - 1] = .body(chunk)
            let (outcome, submit) = queue(batching: batching)
            lock.unlock()
            if submit { pool.submit(self) }
            return outcome
        }
        lock.unlock()
        var outcome = Offer.queued
        var rest = bytes[...]
        while !rest.isEmpty {
            let part = UnsafeRawBufferPointer(rebasing: rest.prefix(Self.chunkLimit))
            let chunk = Data(bytes: part.baseAddress!, count: part.count)
            rest = rest.dropFirst(part.count)
            lock.lock()
            events.append(.body(chunk))
            let (queued, submit) = queue(batching: batching)
            lock.unlock()
            if submit { pool.submit(self) }
            if queued == .batched { outcome = .batched }
        }
        return outcome
    }

    /// Sends batched events on to a delivery thread. Called by the I/O thread, after
    /// ``offer(_:batching:)`` said ``Offer/batched`` (or ``push(_:batching:)`` `true`), before it
    /// waits for the network again.
    ///
    /// A small response that arrived whole — its ending queued, at most ``wholeResponseLimit``
    /// body bytes, nothing delivered yet — of a transfer whose handler runs HotPotato's code only
    /// (``TransferSink/runsOnlyLibraryCode``: `.asJSON()`, `.asString()`, `.asData()`) is
    /// delivered here, on the I/O thread, in a few microseconds: a request then costs one thread
    /// hop fewer. Anything else goes to the pool.
    func flush() {
        lock.lock()
        batched = false
        if deliversWholeResponses, ended, !scheduled, !held, !deliveredAny, totalBodyBytes <= Self.wholeResponseLimit,
           nextEvent < events.count {
            scheduled = true
            lock.unlock()
            // On the awaiting caller's thread if there is one: the I/O thread is free at once.
            if !sink.deliverOnCaller(self) { run() }
            return
        }
        let submit = scheduleIfNeeded()
        lock.unlock()
        if submit { pool.submit(self) }
    }

    /// Called by a lane's thread with the lock held: whether it may deliver the next event itself
    /// now — nothing is queued before it, no thread delivers, the handler does not hold — and if
    /// so, marks the delivery begun and releases the lock. Otherwise the lock stays held and the
    /// event is queued as in any other loop.
    private func beginInlineTurn() -> Bool {
        guard !scheduled, !held, nextEvent == events.count else { return false }
        scheduled = true
        delivering = true
        deliveredAny = true
        lock.unlock()
        return true
    }

    /// Ends a lane's delivery: what was queued meanwhile (a hold released) goes to the pool.
    private func endInlineTurn() {
        lock.lock()
        delivering = false
        scheduled = false
        let submit = scheduleIfNeeded()
        lock.unlock()
        if submit { pool.submit(self) }
    }

    /// Called with the lock held, after bytes were queued: whether they are left batched
    /// (``Offer/batched`` only the first time they are left for ``flush()``), and whether the
    /// caller must submit the handoff to the pool once the lock is released.
    private func queue(batching: Bool) -> (Offer, submit: Bool) {
        if batching, !scheduled, queuedBytes < Self.batchLimit {
            if batched { return (.queued, false) }
            batched = true
            return (.batched, false)
        }
        return (.queued, scheduleIfNeeded())
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

    /// Holds the deliveries — except on an HTTP/2 stream, whose deliveries go on: the handler
    /// sets the body aside itself (an element stream's ``SpillBuffer``: memory up to its limit,
    /// then an unlinked temporary file, as on the URLSession engine). A hold may last as long as
    /// the consumer likes, and a paused HTTP/2 stream can stall every stream of its connection in
    /// libcurl: 7.88 stops reading the connection while a paused stream has data it could not
    /// take (the consumer of one event stream waiting for another request on the same connection
    /// waited forever), and later versions have had other stalls on unpausing (curl issues
    /// 10988, 16960). A busy handler's pause (``offer(_:batching:)``) ends when it catches up,
    /// and stays.
    func hold() {
        lock.lock()
        if !multiplexed { held = true }
        lock.unlock()
    }

    /// The response head came over `version`: called on the I/O thread before the head is
    /// queued, so before the handler can ask for a hold.
    func responseArrived(over version: HTTPVersion?) {
        lock.lock()
        multiplexed = (version?.major ?? 1) >= 2
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
        deliveredAny = true
        let resumeNow = paused && queuedBytes <= Self.lowWaterMark
        if resumeNow { paused = false }
        delivering = true
        return (event, resumeNow)
    }

    private func deliver(_ event: Event) {
        switch event {
        case .head(let head):
            decoder = nil
            if decodesContent, !head.contentEncodings.isEmpty, !head.hasNoBody, !stopped {
                do {
                    decoder = try ContentDecoder(codings: head.contentEncodings)
                } catch {
                    var failure = error
                    failure.head = head
                    sink.fail(failure)
                    stopDelivering()
                    return
                }
            }
            if !stopped, !sink.receive(head: head) { stopDelivering() }
        case .body(let chunk):
            guard !stopped else { return }
            if decoder != nil {
                chunk.withUnsafeBytes { deliverBody($0) }
            } else if !sink.receive(chunk) {
                stopDelivering()
            }
        case .ending(let ending):
            if case .finished = ending, let decoder, !stopped {
                self.decoder = nil
                do {
                    try decoder.finish()
                } catch {
                    // The framing was whole, the coded stream was not: a body cut short.
                    TransferEnding.endedEarly(error, onlyIfShort: false).report(to: sink)
                    return
                }
            }
            decoder = nil
            ending.report(to: sink)
        }
    }

    /// Hands body bytes on, decoded when the response is content-coded and decoded here.
    private func deliverBody(_ bytes: UnsafeRawBufferPointer) {
        guard let decoder else {
            if !sink.receive(borrowing: bytes) { stopDelivering() }
            return
        }
        do {
            let sink = self.sink
            if try !decoder.decode(bytes, deliver: { sink.receive(borrowing: $0) }) { stopDelivering() }
        } catch {
            self.decoder = nil
            sink.fail(error)
            stopDelivering()
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
