import Foundation

/// The state an element stream shares between the transfer, which delivers the body, and the
/// task iterating the stream: the parser, the elements waiting to be taken, and the raw bytes
/// waiting to be parsed. Behind ``JSONElementStream`` (JSON Lines, array elements) and
/// ``ServerSentEventStream`` (events); the parser says what an element is
/// (``ElementStreamParsing``).
///
/// ## Holding the transfer back without blocking the wrong thread
///
/// At most `capacity` elements wait. When they are not taken, the chunk that found no room is set
/// aside, raw, for the consumer to parse as it takes elements, and:
/// - when the engine lets the handler hold its deliveries (libcurl's; see
///   ``allowHoldingDeliveries(_:)``), the transfer is **held**: nothing more is delivered until the
///   consumer has made room, libcurl pauses the transfer, and TCP (or the HTTP/2 window) holds the
///   rest on the server — no thread waits meanwhile;
/// - otherwise (URLSession, which cannot pause a transfer), the raw bytes that keep coming are set
///   aside too — in memory up to `memoryLimit`, then in an unlinked temporary file.
///
/// Either way memory stays bounded by the largest element, the buffer and `memoryLimit`.
///
/// ## Ending early
///
/// A parser that has read all it wants (an event stream's end marker) says so
/// (``ElementStreamParsing/isComplete``): the stream ends normally after the elements before it,
/// and the transfer is stopped.
final class ElementStreamState<Parser: ElementStreamParsing>: @unchecked Sendable {
    typealias Element = Parser.Element

    private let condition = NSCondition()
    private let capacity: Int
    /// Guarded by `condition`, as every call to it.
    private let parser: Parser
    private var head: ResponseHead?

    private var elements: [Element] = []
    private var taken = 0

    /// Raw bytes not parsed yet, oldest first: in memory up to `memoryLimit`, then in a
    /// temporary file.
    private let unparsed: SpillBuffer
    /// The bytes ``unparsed`` keeps in memory before it spills to a file.
    private let memoryLimit: Int

    /// The body is complete (the handler's `finish()` ran).
    private var bodyEnded = false
    /// The parser was told the body ended, and agreed.
    private var parserFinished = false
    /// How the transfer failed, to report once the bytes before the failure are used up.
    private var transferFailure: HotPotatoError?
    /// How the stream ends, once known: delivered after the waiting elements.
    private var outcome: Result<Void, HotPotatoError>?
    private var outcomeDelivered = false

    /// Whether a body byte has arrived, from this attempt or an earlier one.
    private var receivedBody = false

    /// How the transfer's deliveries are held, when the engine allows it (see
    /// ``allowHoldingDeliveries(_:)``).
    private var deliveryHold: (any DeliveryHold)?
    /// Whether the deliveries are held until the consumer makes room.
    private var holding = false

    private var consumer: CheckedContinuation<Result<Element?, HotPotatoError>, Never>?
    private var isCancelled = false
    private var stopTransfer: (@Sendable () -> Void)?

    init(parser: Parser, capacity: Int, memoryLimit: Int = 1024 * 1024) {
        self.parser = parser
        self.capacity = max(1, capacity)
        unparsed = SpillBuffer(memoryLimit: memoryLimit, readSize: 64 * 1024)
        self.memoryLimit = memoryLimit
    }

    /// Whether any body byte has reached the stream: a new attempt of the call would then hand
    /// the consumer elements it has had (see ``AttemptBoundHandler``).
    var hasReceivedBody: Bool {
        condition.lock()
        defer { condition.unlock() }
        return receivedBody
    }

    /// Reads the parser's state under the lock (what an event stream needs to reconnect).
    func withParser<T>(_ body: (Parser) -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body(parser)
    }

    /// Sets what stops the transfer when the consumer goes away first.
    func onCancel(_ stop: @escaping @Sendable () -> Void) {
        condition.lock()
        let cancelled = isCancelled
        if !cancelled { stopTransfer = stop }
        condition.unlock()
        if cancelled { stop() }
    }

    private var waiting: Int { elements.count - taken }

    // MARK: - The transfer's side

    /// The engine lets the stream hold its transfer's deliveries with `hold` until the consumer
    /// makes room. Called before the first event of each attempt: a hold asked for on an earlier
    /// attempt carries over.
    func allowHoldingDeliveries(_ hold: any DeliveryHold) {
        condition.lock()
        deliveryHold = hold
        if holding { hold.hold() }
        condition.unlock()
    }

    func prepare(for head: ResponseHead) {
        condition.lock()
        self.head = head
        parser.prepare(for: head)
        condition.unlock()
    }

    /// Takes the next chunk of the body: parses it now if there is room, and otherwise sets it
    /// aside for the consumer and holds the transfer's deliveries (when the engine allows it)
    /// until the consumer has made room.
    func receive(_ chunk: Data) throws {
        // Declared first, so it runs last: the consumer is resumed after the lock is released.
        var resumeConsumer: (() -> Void)?
        defer { resumeConsumer?() }
        condition.lock()
        defer { condition.unlock() }
        receivedBody = true
        if isCancelled { throw Self.cancelled }
        if let outcome { throw Self.stopping(after: outcome) }
        if waiting < capacity && unparsed.isEmpty {
            // A failure here fails the transfer; the stream reports it after the elements before it.
            try parse(chunk)
            resumeConsumer = takeConsumerIfReady()
            if let outcome { throw Self.stopping(after: outcome) }
            return
        }
        try setAside(chunk)
        if let deliveryHold, !holding {
            holding = true
            deliveryHold.hold()
        }
    }

    /// The body is complete: finish the parser now, or once the consumer has parsed what was set
    /// aside.
    func bodyDidEnd() throws {
        var resumeConsumer: (() -> Void)?
        defer { resumeConsumer?() }
        condition.lock()
        defer { condition.unlock() }
        bodyEnded = true
        guard unparsed.isEmpty else { return }
        try finishParser()
        resumeConsumer = takeConsumerIfReady()
    }

    /// The transfer ended (its call completed).
    func transferDidEnd(_ result: Result<Void, HotPotatoError>) {
        condition.lock()
        if case .failure(let error) = result, transferFailure == nil, outcome == nil {
            transferFailure = error
        }
        if unparsed.isEmpty && outcome == nil {
            if let transferFailure {
                outcome = .failure(transferFailure)
            } else if bodyEnded {
                outcome = .success(())
            }
        }
        let resumed = takeConsumerIfReady()
        condition.unlock()
        resumed?()
    }

    // MARK: - The consumer's side

    /// The next element, `nil` at the end, or the error that ended the stream (once).
    func next() async -> Result<Element?, HotPotatoError> {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Element?, HotPotatoError>, Never>) in
                condition.lock()
                if let ready = nextIfReady() {
                    condition.unlock()
                    continuation.resume(returning: ready)
                    return
                }
                consumer = continuation
                condition.unlock()
            }
        } onCancel: {
            cancel()
        }
    }

    /// The consumer is gone: wakes a waiting transfer, fails a waiting `next()`, stops the
    /// transfer.
    func cancel() {
        condition.lock()
        guard !isCancelled else {
            condition.unlock()
            return
        }
        isCancelled = true
        let waitingConsumer = consumer
        consumer = nil
        let stop = stopTransfer
        stopTransfer = nil
        elements.removeAll()
        taken = 0
        unparsed.removeAll()
        releaseIfRoom()
        condition.unlock()
        waitingConsumer?.resume(returning: .failure(Self.cancelled))
        stop?()
    }

    /// Stops the transfer, from another thread: the caller holds the lock, which stopping may
    /// need.
    private func stopTransferSoon() {
        guard let stop = stopTransfer else { return }
        stopTransfer = nil
        DispatchQueue.global().async { stop() }
    }

    /// What the handler throws to stop a transfer whose stream has already ended: its own
    /// failure, or, once it ended early, an error the stream never reports (its outcome is
    /// settled first).
    private static func stopping(after outcome: Result<Void, HotPotatoError>) -> HotPotatoError {
        if case .failure(let error) = outcome { return error }
        return HotPotatoError(.cancelled, reason: "The stream ended before its body did.")
    }

    static var cancelled: HotPotatoError {
        HotPotatoError(.cancelled, reason: "The stream was cancelled.")
    }

    // MARK: - Under the lock

    /// What `next()` can answer right away, parsing set-aside bytes if needed; `nil` when it must
    /// wait.
    private func nextIfReady() -> Result<Element?, HotPotatoError>? {
        while true {
            if waiting > 0 {
                let element = elements[taken]
                taken += 1
                if taken == elements.count {
                    elements.removeAll(keepingCapacity: true)
                    taken = 0
                }
                releaseIfRoom()
                return .success(element)
            }
            if isCancelled { return .failure(Self.cancelled) }
            if let outcome {
                let first = !outcomeDelivered
                outcomeDelivered = true
                return first ? outcome.map { nil } : .success(nil)
            }
            guard parseSetAside() else {
                // Everything set aside is parsed and no element waits: the consumer now waits
                // for the transfer, which must not stay held (the last blocks may have held only
                // part of an element).
                releaseIfRoom()
                return nil
            }
        }
    }

    /// Parses one block of the bytes set aside, or ends the stream when they are used up and the
    /// transfer is over. Returns whether anything changed.
    private func parseSetAside() -> Bool {
        do {
            if let block = try unparsed.takeOldest() {
                try parse(block)
                // Ended early: the transfer may still be running.
                if outcome != nil { stopTransferSoon() }
                return true
            }
            if let transferFailure {
                outcome = .failure(transferFailure)
                return true
            }
            if bodyEnded {
                try finishParser()
                outcome = .success(())
                return true
            }
            return false
        } catch {
            let failure = error as? HotPotatoError ?? HotPotatoError(.handlerFailed, reason: "\(error)", head: head, underlying: error)
            outcome = .failure(failure)
            unparsed.removeAll()
            // The transfer may still be running: the stream has failed, so stop it.
            stopTransferSoon()
            return true
        }
    }

    private func setAside(_ chunk: Data) throws {
        do {
            try unparsed.append(chunk)
        } catch {
            var failure = HotPotatoError.bufferingFailed(
                "Setting aside body bytes the stream's consumer has not reached failed", limit: Int64(memoryLimit),
                directory: FileManager.default.temporaryDirectory.path, underlying: error)
            failure.head = head
            throw failure.atElement(parser.elementsEmitted)
        }
    }

    private func parse(_ bytes: Data) throws {
        // Drop the elements already taken before adding more: a consumer that keeps up without
        // ever emptying the buffer would otherwise leave every element of the document in it.
        if taken > 0 {
            elements.removeFirst(taken)
            taken = 0
        }
        try bytes.withUnsafeBytes { buffer in
            try parser.parse(buffer) { elements.append($0) }
        }
        if parser.isComplete { endEarly() }
    }

    private func finishParser() throws {
        guard !parserFinished else { return }
        try parser.finish { elements.append($0) }
        parserFinished = true
    }

    /// The parser wants no more: the stream ends after the elements waiting, and the transfer
    /// stops (its handler's next call throws ``endedEarly``).
    private func endEarly() {
        guard outcome == nil else { return }
        outcome = .success(())
        parserFinished = true
        unparsed.removeAll()
    }

    /// Lets the transfer's deliveries go on once what was set aside is parsed and an element's
    /// room is free.
    private func releaseIfRoom() {
        guard holding, isCancelled || (unparsed.isEmpty && waiting < capacity) else { return }
        holding = false
        deliveryHold?.release()
    }

    /// The waiting consumer, with its answer, when there is one to give: the caller resumes it
    /// once it has released the lock, never under it.
    private func takeConsumerIfReady() -> (() -> Void)? {
        guard let waitingConsumer = consumer, let ready = nextIfReady() else { return nil }
        consumer = nil
        return { waitingConsumer.resume(returning: ready) }
    }
}
