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
/// appends chunks to an anonymous ``SpillFile`` (fast, so URLSession's backlog drains), and a
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
    private enum Mode {
        case direct
        case spilling(SpillFile)
    }

    private enum Ending {
        case success
        case failure(HotPotatoError)
        /// The body ended early, or may have (see ``TransferSink/bodyEndedEarly(_:onlyIfShort:)``).
        case endedEarly(HotPotatoError, onlyIfShort: Bool)
    }

    /// How many chunks pass between two samples of the delegate queue's backlog.
    private static let sampleInterval = 8
    /// The size of the blocks the consumer reads back from the spill file.
    private static let spillReadSize = 256 * 1024

    private let sink: any TransferSink
    private let redirectPolicy: RedirectPolicy
    private let highWaterMark: Int
    private let backlog: @Sendable () -> Int
    private let nextTask: NextTask
    private let release: @Sendable (Int) -> Void
    private let consumerQueue = DispatchQueue(label: "HotPotato.URLSession.spill")
    /// Signalled by the delegate queue when it spills a chunk while the consumer waits for one.
    private let spilled = DispatchSemaphore(value: 0)
    /// The handler's recent cost, in nanoseconds per byte (an exponential moving average). Touched
    /// only on the delegate queue, in direct mode.
    private var handlerNanosPerByte = 0.0
    /// Spilling helps only when the handler, not URLSession's single delivery thread, is what
    /// falls behind: a handler slower than this (about 800 MiB/s) may be spilled for. A faster one
    /// with a backlog (many parallel transfers on one session) would only be slowed by the disk.
    private static let slowHandlerNanosPerByte = 20_000.0 / 16_384

    /// Makes the task that sends a redirect's request (with the body file to upload, if any) in
    /// place of the task with the given identifier; `nil` when the session can make no more.
    typealias NextTask = @Sendable (
        _ transfer: URLSessionTransfer, _ replacing: Int, _ request: URLRequest, _ bodyFile: URL?
    ) -> URLSessionTask?

    private struct State {
        /// The task sending ``request``; `nil` until ``start(_:)``.
        var task: URLSessionTask?
        /// The request being sent: the caller's, then each redirect's.
        var request: URLRequest
        /// The file the body is uploaded from, while the request still sends it.
        var bodyFile: URL?
        var mode = Mode.direct
        var ending: Ending?
        var stopped = false
        var redirects = 0
        var hasHead = false
        var chunksSinceSample = 0
        var consumerWaiting = false
    }

    private let state: Locked<State>

    /// - Parameters:
    ///   - nextTask: Makes the task of each redirect that is followed.
    ///   - release: Called with the identifier of the current task once the transfer's ending has
    ///     been delivered, so the engine can forget it.
    init(
        request: URLRequest, bodyFile: URL?, sink: any TransferSink, redirectPolicy: RedirectPolicy,
        highWaterMark: Int, backlog: @escaping @Sendable () -> Int, nextTask: @escaping NextTask,
        release: @escaping @Sendable (Int) -> Void
    ) {
        state = Locked(State(request: request, bodyFile: bodyFile))
        self.sink = sink
        self.redirectPolicy = redirectPolicy
        self.highWaterMark = highWaterMark
        self.backlog = backlog
        self.nextTask = nextTask
        self.release = release
    }

    /// Resumes the first task, made for the request given to `init`; returns `false` when there
    /// is none (the session is invalidated).
    func start(_ task: URLSessionTask?) -> Bool {
        guard let task else { return false }
        // Resumed under the lock, so that `stop()` never finds a task that is not running yet.
        let stopped = state.withLock { state -> Bool in
            state.task = task
            task.resume()
            return state.stopped
        }
        if stopped { DispatchQueue.global(qos: .utility).async { task.cancel() } }
        return true
    }

    // MARK: - Delegate queue

    func didReceive(_ response: URLResponse) {
        let head = state.withLock { state in
            let head = Self.head(of: response, method: state.request.httpMethod ?? "GET")
            state.hasHead = true
            return head
        }
        if !sink.receive(head: head) { stop() }
    }

    func didReceive(_ data: Data) {
        if sink.isFinished { return }
        // Checking the mode and appending to the spill file happen under one lock, so the consumer
        // cannot hand back to direct delivery between the two.
        enum Route { case direct, spilled, failed(HotPotatoError) }
        let route: Route = state.withLock { state in
            guard case .spilling(let spill) = state.mode else { return .direct }
            do {
                try spill.append(data)
                return .spilled
            } catch {
                return .failed(bufferingFailure("Buffering the body for a slow handler in a temporary file failed", error))
            }
        }
        switch route {
        case .spilled:
            if state.withLock({ $0.consumerWaiting }) { spilled.signal() }
        case .failed(let failure):
            sink.fail(failure)
            stop()
        case .direct:
            let started = DispatchTime.now().uptimeNanoseconds
            guard sink.receive(data) else {
                stop()
                return
            }
            let cost = Double(DispatchTime.now().uptimeNanoseconds - started) / Double(max(1, data.count))
            handlerNanosPerByte = handlerNanosPerByte * 0.9 + cost * 0.1
            sampleBacklog()
        }
    }

    func didComplete(_ error: (any Error)?) {
        let ending: Ending
        if let error {
            ending = self.ending(for: error)
        } else {
            deliverUnreportedHead()
            ending = .success
        }
        let spilling = state.withLock { state -> Bool in
            guard case .spilling = state.mode else { return false }
            state.ending = ending
            return true
        }
        if !spilling { deliver(ending) }
    }

    /// Hands over the head of a response URLSession completed without reporting it.
    ///
    /// FoundationNetworking reports neither the head nor the body of a `301`–`303` or `305`–`308`
    /// it does not offer to follow — one without a `Location` (or with one it cannot parse) — and
    /// completes the task as if it had. Its head is still known (`task.response`): it goes to the
    /// handler as the final response, as on the curl engine, but with an empty body, since that
    /// body was never delivered; so its `Content-Length` is dropped, lest the empty body read as
    /// a truncated one.
    private func deliverUnreportedHead() {
        let unreported = state.withLock { state in state.hasHead ? nil : state.task?.response as? HTTPURLResponse }
        guard let response = unreported, (300..<400).contains(response.statusCode) else { return }
        var head = state.withLock { state in Self.head(of: response, method: state.request.httpMethod ?? "GET") }
        head.headers.remove(name: "Content-Length")
        state.withLock { $0.hasHead = true }
        if !sink.receive(head: head) { stop() }
    }

    /// Answers URLSession's offer to follow a redirect: always declines it, then follows the
    /// redirect itself when ``RedirectPolicy`` does.
    ///
    /// - A redirect the policy follows goes out as a new task of the same session, made by
    ///   `nextTask`, which files it under this transfer in place of the declined one; the declined
    ///   task then delivers the redirect's head and body to nobody and completes on its own.
    /// - Any other `3xx` (`305`, `306`, or any redirect with a limit of 0) is delivered: declined,
    ///   URLSession hands the response and its body over as the final one.
    /// - Past the limit, or for a `Location` that is not `http` or `https`, the call fails
    ///   (``HotPotatoError/Code/tooManyRedirects``, ``HotPotatoError/Code/invalidRequest``).
    ///
    /// FoundationNetworking asks only for `301`–`303` and `305`–`308` with a `Location` it can
    /// parse; a `300` never reaches here and is delivered as it is.
    ///
    /// On Linux, answering after the task was cancelled is a fatal error in FoundationNetworking,
    /// and so is a cancel processed before an answer already given. So the answer is given under
    /// the same lock ``stop()`` takes, and only if the task has not been stopped; a cancel issued
    /// afterwards reaches URLSession's work queue after the answer. The next task is made and
    /// resumed under that lock too, so that `stop()` always cancels the task that is running.
    func handleRedirect(_ response: HTTPURLResponse, completionHandler: (URLRequest?) -> Void) {
        let failure = state.withLock { state -> HotPotatoError? in
            guard !state.stopped, let declined = state.task else { return nil }
            completionHandler(nil)
            let head = Self.head(of: response, method: state.request.httpMethod ?? "GET")
            let next: (request: URLRequest, keepsBody: Bool)?
            do throws(HotPotatoError) {
                next = try redirectPolicy.nextRequest(after: state.request, response: head, redirectsFollowed: state.redirects)
            } catch {
                return error
            }
            guard let next else { return nil }
            let bodyFile = next.keepsBody ? state.bodyFile : nil
            guard let task = nextTask(self, declined.taskIdentifier, next.request, bodyFile) else {
                return HotPotatoError(
                    .invalidRequest, reason: "The session was invalidated before the redirect could be followed.", head: head)
            }
            state.task = task
            state.request = next.request
            state.bodyFile = bodyFile
            state.redirects += 1
            task.resume()
            return nil
        }
        guard let failure else { return }
        sink.fail(failure)
        stop()
    }

    // MARK: - Any thread

    /// Stops the task. URLSession's `cancel()` can block for seconds on a busy transfer, so it runs
    /// on a queue of its own; whatever still arrives is ignored because the sink is finished.
    func stop() {
        // A task not started yet is cancelled by `start(_:)`.
        let task: URLSessionTask? = state.withLock { state in
            defer { state.stopped = true }
            return state.stopped ? nil : state.task
        }
        guard let task else { return }
        DispatchQueue.global(qos: .utility).async { task.cancel() }
    }

    // MARK: - Spilling

    /// The bytes waiting on the delegate queue, estimated from its operation count and
    /// URLSession's chunk size (16 KiB on Linux).
    private func backlogBytes() -> Int {
        backlog() * 16 * 1024
    }

    private func sampleBacklog() {
        let due = state.withLock { state -> Bool in
            state.chunksSinceSample += 1
            guard state.chunksSinceSample >= Self.sampleInterval else { return false }
            state.chunksSinceSample = 0
            return true
        }
        guard due, handlerNanosPerByte > Self.slowHandlerNanosPerByte else { return }
        let backlog = backlogBytes()
        guard backlog > highWaterMark else { return }
        let file: SpillFile
        do {
            file = try SpillFile()
        } catch {
            // No spill file (an unwritable or full temporary directory): growing past the bound
            // is not an option, so the call fails.
            sink.fail(bufferingFailure(
                "A slow handler fell \(backlog) bytes behind, past the \(highWaterMark)-byte high-water mark, and the "
                    + "rest could not be spilled to a temporary file", error))
            stop()
            return
        }
        state.withLock { state in state.mode = .spilling(file) }
        consumerQueue.async { self.drainSpill(file) }
    }

    /// Runs on the consumer queue: feeds the handler from the spill file until it has caught up,
    /// then hands chunks back to the delegate queue.
    private func drainSpill(_ spill: SpillFile) {
        while !sink.isFinished {
            enum Next { case read(Int64, Int), end(Ending), drained }
            let next: Next = state.withLock { state in
                if spill.pending > 0 {
                    return .read(spill.readOffset, Int(min(spill.pending, Int64(Self.spillReadSize))))
                }
                if let ending = state.ending { return .end(ending) }
                return .drained
            }
            switch next {
            case .read(let offset, let count):
                do {
                    let block = try spill.read(at: offset, count: count)
                    state.withLock { _ in spill.consume(count) }
                    if !sink.receive(block) { stop() }
                } catch {
                    sink.fail(HotPotatoError(
                        .fileSystemError, reason: "Reading back buffered body bytes failed: \(error)", underlying: error))
                    stop()
                }
            case .end(let ending):
                deliver(ending)
                return
            case .drained:
                // Hand back to direct delivery only once URLSession's own backlog is small too;
                // otherwise wait for the delegate queue to spill more. The backlog is counted
                // outside the lock: counting is linear in its length.
                let small = backlogBytes() <= highWaterMark / 4
                let resumed = state.withLock { state -> Bool in
                    guard spill.pending == 0, state.ending == nil else { return false }
                    if small { state.mode = .direct } else { state.consumerWaiting = true }
                    return small
                }
                if resumed { return }
                _ = spilled.wait(timeout: .now() + .milliseconds(5))
                state.withLock { $0.consumerWaiting = false }
            }
        }
        // The call is settled (failed or cancelled) while spilling: stop spilling, and if the
        // task has already ended, nothing else will release this transfer.
        let ended = state.withLock { state -> Bool in
            state.mode = .direct
            return state.ending != nil
        }
        if ended { releaseFromEngine() }
    }

    /// ``HotPotatoError/Code/bufferingFailed``, with the high-water mark and the temporary directory.
    private func bufferingFailure(_ what: String, _ error: any Error) -> HotPotatoError {
        .bufferingFailed(
            what, limit: Int64(highWaterMark), directory: FileManager.default.temporaryDirectory.path, underlying: error)
    }

    // MARK: - Endings

    private func deliver(_ ending: Ending) {
        switch ending {
        case .success: sink.end()
        case .failure(let error): sink.fail(error)
        case .endedEarly(let cause, let onlyIfShort): sink.bodyEndedEarly(cause, onlyIfShort: onlyIfShort)
        }
        releaseFromEngine()
    }

    /// Lets the engine forget this transfer, filed under its current task.
    private func releaseFromEngine() {
        if let identifier = state.withLock({ $0.task?.taskIdentifier }) { release(identifier) }
    }

    /// Cancels the call (the session is being invalidated) and stops the task.
    func cancel() {
        sink.cancel()
        stop()
    }

    private func ending(for error: any Error) -> Ending {
        let mapped = URLErrorMapping.map(error)
        let hasHead = state.withLock { $0.hasHead }
        // libcurl's "transfer closed with N bytes remaining" (a short Content-Length body) and
        // "transfer closed with outstanding read data remaining" (a chunked body cut before its
        // last chunk) both reach us as URLError.unknown once the head has arrived. Another
        // failure after the head is an early end if fewer bytes than declared arrived, which the
        // driver, counting them, decides.
        if (error as? URLError)?.code == .unknown && hasHead { return .endedEarly(mapped, onlyIfShort: false) }
        if mapped.code == .transportFailed && hasHead { return .endedEarly(mapped, onlyIfShort: true) }
        if (error as? URLError)?.code == .unknown, !hasHead, Self.looksLikeTLSFailure(mapped.reason) {
            // On Linux, URLSession reports libcurl's TLS errors (a handshake failure, a bad
            // certificate) as URLError.unknown; only OpenSSL's message says what happened.
            return .failure(HotPotatoError(.tlsFailure, reason: "The TLS handshake failed: \(mapped.reason)", underlying: error))
        }
        // A lost connection gets the declared length and the bytes received from the driver.
        return .failure(mapped)
    }

    private static func looksLikeTLSFailure(_ message: String) -> Bool {
        ["SSL", "TLS", "certificate", "OpenSSL", "handshake"].contains { message.localizedCaseInsensitiveContains($0) }
    }

    static func head(of response: URLResponse, method: String) -> ResponseHead {
        if let http = response as? HTTPURLResponse {
            return ResponseHead(
                status: http.statusCode, headers: HTTPHeaders(http.allHeaderFields), url: http.url,
                requestMethod: method)
        }
        // A `data:` URL: no status line, so the type and length come from the response itself.
        var headers = HTTPHeaders()
        if let mimeType = response.mimeType {
            let charset = response.textEncodingName.map { "; charset=\($0)" } ?? ""
            headers.add(name: "Content-Type", value: mimeType + charset)
        }
        if response.expectedContentLength >= 0 {
            headers.add(name: "Content-Length", value: String(response.expectedContentLength))
        }
        return ResponseHead(status: 200, headers: headers, url: response.url, requestMethod: method)
    }
}
