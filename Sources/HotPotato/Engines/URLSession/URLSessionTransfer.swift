import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One URLSession task's side of a transfer: turns the delegate's callbacks into
/// ``TransferSink`` events, keeps memory bounded under a slow handler, and stops the task
/// without ever waiting for URLSession.
///
/// ## Bounding memory
///
/// Chunks are handed to the handler right on the delegate queue — no extra thread hop — as long
/// as the handler keeps up. Every few chunks the backlog of the delegate queue is sampled; when it
/// holds more than the high-water mark, the task switches to *spilling*: the delegate queue only
/// appends chunks to a ``SpillBuffer`` that keeps none in memory (fast, so URLSession's backlog drains), and a
/// consumer queue feeds the handler from the file. When the consumer has caught up, chunks go
/// straight to the handler again. Memory therefore stays near the high-water mark however slow the
/// handler is; the disk absorbs the rest.
///
/// ## Redirects
///
/// URLSession is never let to follow a redirect: FoundationNetworking would send the next request
/// without its body whatever the answer says (it resets the task's body before each redirect), and
/// stop after 20. Each redirect is declined, and the request ``RedirectPolicy`` makes of it goes
/// out as a new task of the same session (the same connection pool); the declined task's last
/// events are ignored. See ``handleRedirect(_:completionHandler:)``.
final class URLSessionTransfer: @unchecked Sendable {
    enum Mode {
        case direct
        case spilling(SpillBuffer)
    }

    /// What only a transfer that spills needs, made at its first spill rather than for every
    /// transfer.
    struct Spilling {
        /// Where the handler is fed from the spill file, one drain at a time.
        let consumerQueue = DispatchQueue(label: "HotPotato.URLSession.spill")
        /// Signalled by the delegate queue when it spills a chunk while the consumer waits for one.
        let spilled = DispatchSemaphore(value: 0)
    }

    /// How many chunks pass between two samples of the delegate queue's backlog.
    static let sampleInterval = 8
    /// The size of the blocks the consumer reads back from the spill file.
    static let spillReadSize = 256 * 1024

    let sink: any TransferSink
    let redirectPolicy: RedirectPolicy
    /// Checks that each redirect may go the way the configured proxy says.
    let proxyRule: URLSessionProxyRule
    /// Every cancel of this transfer's tasks goes through it.
    let canceller: URLSessionTaskCanceller
    let highWaterMark: Int
    let backlog: @Sendable () -> Int
    let nextTask: NextTask
    private let release: @Sendable (Int) -> Void
    /// The handler's recent cost, in nanoseconds per byte (an exponential moving average). Touched
    /// only on the delegate queue, in direct mode.
    var handlerNanosPerByte = 0.0
    /// A 2xx response of a tunnelled request not handed over yet: perhaps the proxy's answer to
    /// the `CONNECT` (see ``holdsBack(_:)``). Touched only on the delegate queue, so that a chunk
    /// pays no lock for it.
    var heldResponse: URLResponse?
    /// Spilling helps only when the handler, not URLSession's single delivery thread, is what
    /// falls behind: a handler slower than this (about 800 MiB/s) may be spilled for. A faster one
    /// with a backlog (many parallel transfers on one session) would only be slowed by the disk.
    static let slowHandlerNanosPerByte = 20_000.0 / 16_384

    /// Makes the task that sends a redirect's request (with the body to stream, if any) in place of
    /// the task with the given identifier; `nil` when the session can make no more.
    typealias NextTask = @Sendable (
        _ transfer: URLSessionTransfer, _ replacing: Int, _ request: URLRequest, _ body: RequestBody?
    ) -> URLSessionTask?

    struct State {
        /// The task sending ``request``; `nil` until ``start(_:)``.
        var task: URLSessionTask?
        /// The request being sent: the caller's, then each redirect's.
        var request: URLRequest
        /// The body streamed (a file, a form, a stream), while the request still sends it; without
        /// one, the request's `httpBody` is sent.
        var body: RequestBody?
        var mode = Mode.direct
        var ending: TransferEnding?
        var stopped = false
        var redirects = 0
        var hasHead = false
        var chunksSinceSample = 0
        /// The body bytes the current response still owes by its declared length; `nil` when
        /// its length is not known (no valid `Content-Length`, or content-coded). At 0 the task
        /// is about to complete by itself, and ``stop()`` leaves it to, keeping its connection
        /// for the next request instead of closing it.
        var bodyRemaining: Int64?
        var consumerWaiting = false
        /// Made at the first spill; kept for any later one.
        var spilling: Spilling?
        /// The stream the current task reads ``body`` from, when it streams it.
        var bodyStream: BodyInputStream?
    }

    let state: Locked<State>
    #if canImport(FoundationNetworking)
    /// The request's idle timeout, when FoundationNetworking cannot keep it (see ``IdleClock``).
    let idleClock: IdleClock?
    #endif

    /// - Parameters:
    ///   - nextTask: Makes the task of each redirect that is followed.
    ///   - release: Called with the identifier of the current task once the transfer's ending has
    ///     been delivered, so the engine can forget it.
    init(
        request: URLRequest, body: RequestBody?, sink: any TransferSink, redirectPolicy: RedirectPolicy, proxyRule: URLSessionProxyRule,
        canceller: URLSessionTaskCanceller, highWaterMark: Int, backlog: @escaping @Sendable () -> Int, nextTask: @escaping NextTask,
        release: @escaping @Sendable (Int) -> Void
    ) {
        state = Locked(State(request: request, body: body))
        #if canImport(FoundationNetworking)
        idleClock = IdleClock(limit: request.timeoutInterval)
        #endif
        self.sink = sink
        self.redirectPolicy = redirectPolicy
        self.proxyRule = proxyRule
        self.canceller = canceller
        self.highWaterMark = highWaterMark
        self.backlog = backlog
        self.nextTask = nextTask
        self.release = release
    }

    /// Resumes the first task, made for the request given to `init`; returns `false` when there
    /// is none (the session is invalidated).
    /// Whether the transfer was stopped (cancelled, or its session invalidated with it).
    var isStopped: Bool { state.withLock { $0.stopped } }

    func start(_ task: URLSessionTask?) -> Bool {
        guard let task else { return false }
        // Resumed under the lock, so that `stop()` never finds a task that is not running yet.
        let stopped = state.withLock { state -> Bool in
            state.task = task
            task.resume()
            return state.stopped
        }
        // The idle clock runs from when the task goes out, not from when the call was made (on
        // Linux the task is made on a queue of the engine's, which a busy process may hold up).
        noteActivity()
        watchIdle()
        if stopped { DispatchQueue.global(qos: .utility).async { [canceller] in canceller.cancel(task) } }
        return true
    }

    // MARK: - Delegate queue

    func didReceive(_ response: URLResponse) {
        noteActivity()
        // An interim response (`103 Early Hints`, an unasked `100 Continue`) is no answer:
        // FoundationNetworking reports each it reads, then the final one. (A `101` nobody asked
        // for is delivered, and its status refused.)
        if let http = response as? HTTPURLResponse, (100..<200).contains(http.statusCode), http.statusCode != 101 { return }
        if holdsBack(response) { return }
        deliverHead(of: response)
    }

    func deliverHead(of response: URLResponse) {
        let head = state.withLock { state in
            let head = Self.head(of: response, method: state.request.httpMethod ?? "GET")
            state.hasHead = true
            state.bodyRemaining = head.declaredBodyLength
            return head
        }
        if !sink.receive(head: head) { stop() }
    }

    func didReceive(_ data: Data) {
        if sink.isFinished { return }
        noteActivity()
        // Again once the handler has taken it: the time a slow handler takes is not idleness.
        defer { noteActivity() }
        if heldResponse != nil, let held = takeHeldResponse() { deliverHead(of: held) }
        // Checking the mode and appending to the spill file happen under one lock, so the consumer
        // cannot hand back to direct delivery between the two. The same lock counts the chunks
        // delivered directly towards the next sample of the backlog.
        enum Route { case direct(sampleDue: Bool), spilled(wakeConsumer: DispatchSemaphore?), failed(HotPotatoError) }
        let route: Route = state.withLock { state in
            if let remaining = state.bodyRemaining { state.bodyRemaining = max(0, remaining - Int64(data.count)) }
            guard case .spilling(let spill) = state.mode else {
                state.chunksSinceSample += 1
                guard state.chunksSinceSample >= Self.sampleInterval else { return .direct(sampleDue: false) }
                state.chunksSinceSample = 0
                return .direct(sampleDue: true)
            }
            do {
                try spill.append(data)
                return .spilled(wakeConsumer: state.consumerWaiting ? state.spilling?.spilled : nil)
            } catch {
                return .failed(bufferingFailure("Buffering the body for a slow handler in a temporary file failed", error))
            }
        }
        switch route {
        case .spilled(let wakeConsumer):
            wakeConsumer?.signal()
        case .failed(let failure):
            sink.fail(failure)
            stop()
        case .direct(let sampleDue):
            let started = DispatchTime.now().uptimeNanoseconds
            guard sink.receive(data) else {
                stop()
                return
            }
            let cost = Double(DispatchTime.now().uptimeNanoseconds - started) / Double(max(1, data.count))
            handlerNanosPerByte = handlerNanosPerByte * 0.9 + cost * 0.1
            if sampleDue { sampleBacklog() }
        }
    }

    func didComplete(_ error: (any Error)?) {
        let ending: TransferEnding
        let held = takeHeldResponse()
        if let error {
            ending = self.ending(for: error)
        } else {
            if let held { deliverHead(of: held) }
            deliverUnreportedHead()
            ending = .finished
        }
        let spilling = state.withLock { state -> Bool in
            guard case .spilling = state.mode else { return false }
            state.ending = ending
            return true
        }
        if !spilling { deliver(ending) }
    }

    // MARK: - Any thread

    /// Stops the task. URLSession's `cancel()` can block for seconds on a busy transfer, so it runs
    /// on a queue of its own; whatever still arrives is ignored because the sink is finished.
    func stop() {
        // A task not started yet is cancelled by `start(_:)`.
        let task: URLSessionTask? = state.withLock { state in
            defer { state.stopped = true }
            // A task that has completed is left alone by the canceller, which keeps the one
            // record of which tasks have.
            guard !state.stopped, let task = state.task else { return nil }
            // The whole declared body is here: the task completes by itself (whatever still
            // arrives is ignored, the sink being finished), so it is not cancelled, and its
            // connection stays open for reuse.
            if state.hasHead, state.bodyRemaining == 0 { return nil }
            return task
        }
        guard let task else { return }
        // The canceller leaves alone a task that has completed (also while this waited for a
        // thread), and makes a completion that races the cancel wait for it (see
        // URLSessionTaskCanceller).
        DispatchQueue.global(qos: .utility).async { [canceller] in canceller.cancel(task) }
    }

    // MARK: - Endings

    func deliver(_ ending: TransferEnding) {
        // The request body goes first: its files are closed (and a one-shot body's claim released)
        // before the caller hears the outcome.
        letGoOfBody()
        ending.report(to: sink)
        releaseFromEngine()
    }

    /// Lets the engine forget this transfer, filed under its current task, and lets go of the
    /// request body.
    func releaseFromEngine() {
        letGoOfBody()
        if let identifier = state.withLock({ $0.task?.taskIdentifier }) { release(identifier) }
    }

    /// Closes the body's reader and drops the body.
    private func letGoOfBody() {
        let body = state.withLock { state -> RequestBody? in
            state.bodyStream?.closeReader()
            state.bodyStream = nil
            defer { state.body = nil }
            return state.body
        }
        // Released here, outside the lock: a one-shot body's release may end its producer.
        _ = body
    }

    /// Fails the call with ``HotPotatoError/Code/timedOut`` (its whole transfer took longer than
    /// ``Session/Configuration/resourceTimeout``, `limit`) and stops the task; nothing when the
    /// call has settled.
    func exceededResourceTimeout(_ limit: TimeInterval) {
        guard !sink.isFinished else { return }
        sink.fail(HotPotatoError(
            .timedOut, reason: "The transfer took longer than Session.Configuration.resourceTimeout (\(limit) s)."))
        stop()
    }

    /// Cancels the call (the session is being invalidated) and stops the task.
    func cancel() {
        sink.cancel()
        stop()
    }
}
