import Foundation

/// A request body that can be read once: the elements of an `AsyncSequence` of `Data`, or the
/// bytes of an `InputStream`, pulled from their producer one element at a time, only as fast as
/// the engine sends them.
///
/// The producer starts at the engine's first read and is asked for the next element only once the
/// previous one has been handed over in full, so at most two elements are held (the one being sent
/// and the one being made). Empty elements are skipped (libcurl reads 0 bytes as the end).
///
/// One object serves every run of the request that made it. Each attempt claims it
/// (``claim(by:)``) and reads it through the ``OneShotReader`` it gets, which lets go of it when
/// the attempt is over; the attempts of one call may claim it in turn (a retry), another call
/// not while one holds it. Once the producer has started, nothing can claim it again: the body was
/// consumed (``wasConsumed``), and sending it again fails with
/// ``HotPotatoError/Code/bodyNotReplayable``.
final class OneShotBody: @unchecked Sendable {
    let length: Int64?
    /// What the body is read from, for messages: "AsyncSequence" or "InputStream".
    let kind: String
    /// Starts the producer: called once, at the first read, outside the lock.
    private let startProducer: @Sendable (OneShotBody) -> Void
    private let lock = NSLock()
    private var state = State()

    private struct State {
        /// The call whose attempt holds the body, while one does.
        var holder: ObjectIdentifier?
        /// The latest claim: only its reader reads, closes and releases.
        var generation = 0
        /// The producer was started: something was taken from the source.
        var started = false
        /// Closed after the start: nothing more is produced or read.
        var terminated = false
        var pending = Data()
        var pendingOffset = 0
        var finished = false
        var failure: HotPotatoError?
        /// The reader asked for an element the producer has not delivered yet.
        var outstanding = false
        /// An element was asked for before the producer waited for the request.
        var demanded = false
        var producerWaiting: (@Sendable (Bool) -> Void)?
        var wake: (@Sendable () -> Void)?
        var handedOut: Int64 = 0
        var stopProducer: (@Sendable () -> Void)?
    }

    init(kind: String, length: Int64?, start: @escaping @Sendable (OneShotBody) -> Void) {
        self.kind = kind
        self.length = length
        startProducer = start
    }

    // MARK: - Runs of the request

    /// Whether anything was taken from the source: the body can no longer be sent from its start.
    var wasConsumed: Bool { lock.withLock { state.started } }

    /// Claims the body for an attempt of the call `owner` (a retry is another attempt of the same
    /// call): the reader the attempt reads it through.
    /// - Throws: ``HotPotatoError/Code/bodyNotReplayable`` once it was consumed, or while another
    ///   call holds it.
    func claim(by owner: AnyObject) throws(HotPotatoError) -> OneShotReader {
        let caller = ObjectIdentifier(owner)
        let claimed = lock.withLock { () -> Result<Int, HotPotatoError> in
            if state.started {
                return .failure(.bodyNotReplayable(
                    "The request body is a one-shot \(kind) that an earlier run of this request already read; it cannot be sent "
                        + "again. Send a body that can be replayed (Data, a file, MultipartFormData) to run a request more than once."))
            }
            if let holder = state.holder, holder != caller {
                return .failure(.bodyNotReplayable("The request body is a one-shot \(kind) that another run of this request is sending."))
            }
            state.holder = caller
            state.generation += 1
            return .success(state.generation)
        }
        return OneShotReader(body: self, generation: try claimed.get())
    }

    /// Ends the claim `generation`, if it is the latest (and the producer, if it started).
    func release(generation: Int) {
        let latest = lock.withLock { () -> Bool in
            guard generation == state.generation else { return false }
            state.holder = nil
            return true
        }
        if latest { close(generation: generation) }
    }

    // MARK: - Reading (through an OneShotReader)

    var bytesRead: Int64 { lock.withLock { state.handedOut } }

    func read(into buffer: UnsafeMutableRawBufferPointer, generation: Int, wake: @escaping @Sendable () -> Void) -> BodyReadResult {
        lock.lock()
        if state.terminated || generation != state.generation {
            lock.unlock()
            return .failure(HotPotatoError(.cancelled, reason: "The request body was closed."))
        }
        if state.pendingOffset < state.pending.count {
            let count = min(buffer.count, state.pending.count - state.pendingOffset)
            if let length, state.handedOut + Int64(count) > length {
                lock.unlock()
                return .failure(mismatch("produced more than the \(length) bytes announced"))
            }
            state.pending.withUnsafeBytes { bytes in
                let start = state.pendingOffset
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[start..<start + count]))
            }
            state.pendingOffset += count
            state.handedOut += Int64(count)
            var producer: (@Sendable (Bool) -> Void)?
            if state.pendingOffset == state.pending.count {
                state.pending = Data()
                state.pendingOffset = 0
                producer = requestNext()  // made while this one is sent
            }
            lock.unlock()
            producer?(true)
            return .bytes(count)
        }
        if let failure = state.failure {
            lock.unlock()
            return .failure(failure)
        }
        if state.finished {
            let handedOut = state.handedOut
            lock.unlock()
            if let length, handedOut < length { return .failure(mismatch("ended after \(handedOut) of the \(length) bytes announced")) }
            return .end
        }
        state.wake = wake
        let start = !state.started
        state.started = true
        let producer = requestNext()
        lock.unlock()
        if start { startProducer(self) }
        producer?(true)
        return .wouldBlock
    }

    /// A no-op while nothing was taken from the source; impossible afterwards.
    func rewind() -> Bool {
        lock.withLock { !state.started }
    }

    /// Closes the body for the claim `generation`, if it is the latest: a producer that started is
    /// ended (nothing more will be read); one that did not leaves the body to a later claim.
    func close(generation: Int) {
        let (producer, stop, wake) = lock.withLock { () -> ((@Sendable (Bool) -> Void)?, (@Sendable () -> Void)?, (@Sendable () -> Void)?) in
            guard generation == state.generation, state.started, !state.terminated else { return (nil, nil, nil) }
            state.terminated = true
            state.pending = Data()
            defer { state.producerWaiting = nil; state.stopProducer = nil; state.wake = nil }
            return (state.producerWaiting, state.stopProducer, state.wake)
        }
        producer?(false)
        stop?()
        wake?()
    }

    // MARK: - The producer's side

    /// Waits until the reader asks for the next element: `true` then, `false` once the body is
    /// closed (the producer should end).
    func demand() async -> Bool {
        await withCheckedContinuation { continuation in
            waitForDemand { continuation.resume(returning: $0) }
        }
    }

    /// ``demand()`` for a producer on a thread of its own.
    func demandBlocking() -> Bool {
        let signal = DispatchSemaphore(value: 0)
        let granted = Locked(false)
        waitForDemand { answer in
            granted.withLock { $0 = answer }
            signal.signal()
        }
        signal.wait()
        return granted.withLock { $0 }
    }

    /// Registers how to stop the producer when the body is closed (at once, if it is already).
    func onClose(_ stop: @escaping @Sendable () -> Void) {
        let now = lock.withLock { () -> Bool in
            if state.terminated { return true }
            state.stopProducer = stop
            return false
        }
        if now { stop() }
    }

    /// The next element; an empty one is skipped (the producer is asked for another).
    func deliver(_ chunk: Data) {
        let wake = lock.withLock { () -> (@Sendable () -> Void)? in
            guard !state.terminated else { return nil }
            if chunk.isEmpty {
                state.demanded = true
                return nil
            }
            state.outstanding = false
            state.pending = chunk
            state.pendingOffset = 0
            defer { state.wake = nil }
            return state.wake
        }
        wake?()
    }

    /// The source has no more elements.
    func finish() {
        settle { $0.finished = true }
    }

    /// The source failed: the call fails with it (a `HotPotatoError` as it is, anything else as
    /// ``HotPotatoError/Code/invalidRequest`` with it as the `underlying` error).
    func fail(_ error: any Error) {
        let failure = (error as? HotPotatoError)
            ?? HotPotatoError(.invalidRequest, reason: "Reading the request body's \(kind) failed: \(error)", underlying: error)
        settle { $0.failure = failure }
    }

    // MARK: - Private

    private func settle(_ change: (inout State) -> Void) {
        let wake = lock.withLock { () -> (@Sendable () -> Void)? in
            guard !state.terminated else { return nil }
            change(&state)
            state.outstanding = false
            defer { state.wake = nil }
            return state.wake
        }
        wake?()
    }

    private func waitForDemand(_ answer: @escaping @Sendable (Bool) -> Void) {
        let now = lock.withLock { () -> Bool? in
            if state.terminated { return false }
            if state.demanded {
                state.demanded = false
                return true
            }
            state.producerWaiting = answer
            return nil
        }
        if let now { answer(now) }
    }

    /// Under the lock: asks the producer for the next element, unless it is already asked, or
    /// the source has ended. Returns the waiting producer to resume, outside the lock.
    private func requestNext() -> (@Sendable (Bool) -> Void)? {
        guard !state.outstanding, !state.finished, state.failure == nil else { return nil }
        state.outstanding = true
        if let waiting = state.producerWaiting {
            state.producerWaiting = nil
            return waiting
        }
        state.demanded = true
        return nil
    }

    private func mismatch(_ what: String) -> HotPotatoError {
        HotPotatoError(.invalidRequest, reason: "The request body's \(kind) \(what).")
    }
}

/// One attempt's hold on a ``OneShotBody`` (see ``OneShotBody/claim(by:)``): the reader the engine
/// reads it through. Letting go of it releases the claim.
final class OneShotReader: BodyReader {
    let body: OneShotBody
    let generation: Int

    init(body: OneShotBody, generation: Int) {
        self.body = body
        self.generation = generation
    }

    deinit {
        body.release(generation: generation)
    }

    var length: Int64? { body.length }

    var bytesRead: Int64 { body.bytesRead }

    func read(into buffer: UnsafeMutableRawBufferPointer, wake: @escaping @Sendable () -> Void) -> BodyReadResult {
        body.read(into: buffer, generation: generation, wake: wake)
    }

    func rewind() -> Bool { body.rewind() }

    func close() { body.close(generation: generation) }
}
