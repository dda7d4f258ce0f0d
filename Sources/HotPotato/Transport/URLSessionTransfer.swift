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
final class URLSessionTransfer: @unchecked Sendable {
    private enum Mode {
        case direct
        case spilling(SpillFile)
    }

    private enum Ending {
        case success
        case failure(HotPotatoError)
    }

    /// How many chunks pass between two samples of the delegate queue's backlog.
    private static let sampleInterval = 8
    /// The size of the blocks the consumer reads back from the spill file.
    private static let spillReadSize = 256 * 1024

    private let task: URLSessionTask
    private let method: String
    private let sink: any TransferSink
    private let highWaterMark: Int
    private let backlog: @Sendable () -> Int
    private let release: @Sendable () -> Void
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

    private struct State {
        var mode = Mode.direct
        var ending: Ending?
        var stopped = false
        /// A redirect answer is being given: a stop meanwhile cancels the task once it is given.
        var answeringRedirect = false
        var cancelAfterAnswer = false
        var redirects = 0
        var expectedLength: Int64?
        var hasHead = false
        var bytesDelivered: Int64 = 0
        var chunksSinceSample = 0
        var consumerWaiting = false
    }

    private let state = Locked(State())

    /// - Parameter release: Called once the transfer's ending has been delivered, so the engine
    ///   can forget it.
    init(
        task: URLSessionTask, method: String, sink: any TransferSink, highWaterMark: Int,
        backlog: @escaping @Sendable () -> Int, release: @escaping @Sendable () -> Void
    ) {
        self.task = task
        self.method = method
        self.sink = sink
        self.highWaterMark = highWaterMark
        self.backlog = backlog
        self.release = release
    }

    // MARK: - Delegate queue

    func didReceive(_ response: URLResponse) {
        let head = Self.head(of: response, method: method)
        state.withLock { state in
            state.expectedLength = head.contentEncodings.isEmpty ? head.contentLength : nil
            state.hasHead = true
        }
        if !sink.receive(head: head) { stop() }
    }

    func didReceive(_ data: Data) {
        if sink.isFinished { return }
        // Checking the mode and appending to the spill file happen under one lock, so the consumer
        // cannot hand back to direct delivery between the two.
        enum Route { case direct, spilled, failed(HotPotatoError) }
        let route: Route = state.withLock { state in
            state.bytesDelivered += Int64(data.count)
            guard case .spilling(let spill) = state.mode else { return .direct }
            do {
                try spill.append(data)
                return .spilled
            } catch {
                var failure = HotPotatoError(
                    .fileSystemError,
                    reason: "Buffering the body for a slow handler in a temporary file failed: \(error)",
                    underlying: error)
                failure.path = FileManager.default.temporaryDirectory.path
                return .failed(failure)
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
            ending = .failure(failure(for: error))
        } else {
            ending = .success
        }
        let spilling = state.withLock { state -> Bool in
            guard case .spilling = state.mode else { return false }
            state.ending = ending
            return true
        }
        if !spilling { deliver(ending) }
    }

    /// Counts a redirect and answers URLSession: follows it within the limit; past the limit the
    /// call fails with ``HotPotatoError/Code/tooManyRedirects``; with a limit of 0 the 3xx response
    /// is delivered as the final one.
    ///
    /// On Linux, answering after the task was cancelled is a fatal error in FoundationNetworking,
    /// and so is a cancel processed before an answer already given. So the answer is given only if
    /// the task has not been stopped, and a ``stop()`` that comes while it is being given cancels
    /// the task only once it has been: the cancel reaches URLSession's work queue after the
    /// answer. The answer itself is given outside the lock, like every call into URLSession.
    func handleRedirect(to request: URLRequest, limit: Int, completionHandler: (URLRequest?) -> Void) {
        let decision = state.withLock { state -> (answer: URLRequest?, exceeded: Bool)? in
            guard !state.stopped else { return nil }
            state.redirects += 1
            state.answeringRedirect = true
            let follow = limit > 0 && state.redirects <= limit
            return (follow ? request : nil, limit > 0 && state.redirects > limit)
        }
        guard let decision else { return }
        completionHandler(decision.answer)
        let cancelNow = state.withLock { state -> Bool in
            state.answeringRedirect = false
            defer { state.cancelAfterAnswer = false }
            return state.cancelAfterAnswer
        }
        if cancelNow { cancelTask() }
        guard decision.exceeded else { return }
        var error = HotPotatoError(.tooManyRedirects, reason: "The request was redirected more than \(limit) times.")
        error.limit = Int64(limit)
        sink.fail(error)
        stop()
    }

    // MARK: - Any thread

    /// Stops the task. URLSession's `cancel()` can block for seconds on a busy transfer, so it runs
    /// on a queue of its own; whatever still arrives is ignored because the sink is finished.
    func stop() {
        let cancelNow = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.stopped = true
            if state.answeringRedirect { state.cancelAfterAnswer = true }
            return !state.answeringRedirect
        }
        if cancelNow { cancelTask() }
    }

    private func cancelTask() {
        let task = task
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
        guard due, handlerNanosPerByte > Self.slowHandlerNanosPerByte, backlogBytes() > highWaterMark else { return }
        guard let file = try? SpillFile() else { return }  // No spill file: keep going unbounded.
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
        if ended { release() }
    }

    // MARK: - Endings

    private func deliver(_ ending: Ending) {
        switch ending {
        case .success: sink.end()
        case .failure(let error): sink.fail(error)
        }
        release()
    }

    /// Cancels the call (the session is being invalidated) and stops the task.
    func cancel() {
        sink.cancel()
        stop()
    }

    private func failure(for error: any Error) -> HotPotatoError {
        var mapped = URLErrorMapping.map(error)
        let (expected, delivered, hasHead) = state.withLock { ($0.expectedLength, $0.bytesDelivered, $0.hasHead) }
        // libcurl's "transfer closed with N bytes remaining" (a short Content-Length body) and
        // "transfer closed with outstanding read data remaining" (a chunked body cut before its
        // last chunk) both reach us as URLError.unknown once the head has arrived.
        let endedEarly = (error as? URLError)?.code == .unknown && hasHead
        if endedEarly || (mapped.code == .transportFailed && expected.map { delivered < $0 } == true) {
            let declared = expected.map { " of the \($0) bytes its Content-Length declared" } ?? ""
            var truncated = HotPotatoError(
                .truncatedBody,
                reason: "The body ended after \(delivered) bytes\(declared): \(mapped.reason)",
                underlying: error)
            truncated.limit = expected
            truncated.byteCount = delivered
            truncated.byteOffset = delivered
            return truncated
        }
        if (error as? URLError)?.code == .unknown, !hasHead, Self.looksLikeTLSFailure(mapped.reason) {
            // On Linux, URLSession reports libcurl's TLS errors (a handshake failure, a bad
            // certificate) as URLError.unknown; only OpenSSL's message says what happened.
            return HotPotatoError(.tlsFailure, reason: "The TLS handshake failed: \(mapped.reason)", underlying: error)
        }
        if mapped.code == .connectionLost, let expected {
            mapped.limit = expected
            mapped.byteCount = delivered
        }
        return mapped
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
