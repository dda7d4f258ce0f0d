import CCurl
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request performed with libcurl on behalf of ``CurlEngine``, on one of its two paths.
///
/// **The easy path** (``perform(on:)``): a worker thread runs `curl_easy_perform`, and libcurl's
/// callbacks, on that thread, hand everything to the ``TransferSink`` synchronously: the head
/// once the final response's headers are complete, each body chunk as it is received, then the
/// end or the failure. A handler that takes its time holds the callback, libcurl stops reading
/// the socket, and TCP flow control slows the sender: nothing piles up in memory.
///
/// **The multiplexed path** (``handoff`` set; see ``CurlMultiplexer``): the handle joins the
/// engine's multi handle, whose thread runs the callbacks; they queue the same events in the
/// ``CurlHandoff`` instead, which a worker thread delivers to the sink, and a stream whose worker
/// falls behind is paused. Everything of the transfer but the handoff is then touched only on the
/// multi thread.
///
/// Either way, returning 0 from a callback (or non-zero from the progress callback) aborts the
/// transfer, which is how a rejection, a handler failure or a cancellation stops it.
///
/// libcurl does not follow redirects itself: ``RedirectPolicy`` decides at each final head, the
/// redirect's body is read and dropped (never given to the sink), and the next request runs on
/// the same handle, reset and configured again, so a kept-alive connection is reused.
final class CurlTransfer: @unchecked Sendable {
    /// The request being sent: the caller's, then each redirect's.
    private(set) var request: URLRequest
    /// The body streamed (a file, a form, a stream), while the request still sends it; without
    /// one, the request's `httpBody` is sent.
    private(set) var requestBody: RequestBody?
    let sink: any TransferSink
    let configuration: Session.Configuration
    let redirectPolicy: RedirectPolicy
    /// Where the callbacks queue the events of a multiplexed transfer; `nil` on the easy path,
    /// where they call the sink themselves.
    let handoff: CurlHandoff?

    // Touched only by the thread performing the transfer: the worker inside `perform(on:)`, or the
    // multi thread.
    /// The handle the transfer is performed on, while it is.
    private(set) var handle: UnsafeMutableRawPointer?
    /// The header list of the request being sent, freed when its perform ends.
    private var headerList: UnsafeMutableRawPointer?
    /// The header list for the proxy alone (`CURLOPT_PROXYHEADER`), freed when the perform ends.
    var proxyHeaderList: UnsafeMutableRawPointer?
    /// The header fields of the response being received, in order; room for a typical head is
    /// made once per transfer.
    var responseFields: [HTTPHeaders.Field] = []
    var headDelivered = false
    /// The URL of the request being sent, as given to libcurl; set by `configure(_:)`.
    var urlText: String?
    /// The request body being sent, if any; set by `configure(_:)`.
    var body: CurlRequestBody?
    /// The idle timeout, in nanoseconds; set by `configure(_:)`.
    var idleLimit: UInt64 = .max
    /// When bytes last moved either way, or a callback that had held the transfer returned.
    var lastActivity: UInt64 = 0
    /// The byte counts of the last progress call, to tell activity from waiting.
    private var progressCounts: (downloaded: Int64, uploaded: Int64) = (0, 0)
    /// Whether the transfer was stopped for being idle longer than the timeout.
    private var idleTimedOut = false
    /// libcurl's error message of the last perform (`CURLOPT_ERRORBUFFER`); it lives as long as
    /// the transfer, so that a multiplexed perform can write to it between calls.
    let errorBuffer: UnsafeMutablePointer<CChar>
    /// When the first request started, for the resource timeout, which spans every redirect.
    private(set) var startTime: UInt64 = 0
    /// How many redirects this transfer has followed.
    var redirectsFollowed = 0
    /// The request to send next, once the current response's head has turned out to be a
    /// redirect the policy follows; its body is then dropped.
    var pendingRedirect: (request: URLRequest, keepsBody: Bool)?
    /// Why the current response's redirect cannot be followed, when the policy refused it.
    var redirectFailure: HotPotatoError?
    /// Why the request body could not be sent (unreadable, or a one-shot body libcurl had to
    /// rewind): the transfer's ending.
    private var bodyFailure: HotPotatoError?
    /// The body bytes of the redirect being dropped so far.
    private var droppedRedirectBytes = 0

    /// The most body bytes of a redirect that are read (and dropped) so that its connection can be
    /// reused; a longer body is abandoned, and its connection with it.
    static let redirectBodyLimit = 64 * 1024

    /// Creates a transfer for the easy path, or, with `multiplexed`, for the multi handle.
    init(
        request: URLRequest, body: RequestBody?, sink: any TransferSink, configuration: Session.Configuration,
        redirects: RedirectPolicy, multiplexed: Bool = false
    ) {
        self.request = request
        requestBody = body
        self.sink = sink
        self.configuration = configuration
        redirectPolicy = redirects
        handoff = multiplexed ? CurlHandoff() : nil
        errorBuffer = .allocate(capacity: Int(HP_CURL_ERROR_SIZE))
        errorBuffer.initialize(to: 0)
        responseFields.reserveCapacity(16)
    }

    deinit {
        errorBuffer.deallocate()
    }

    /// How a transfer ended, to be reported to the sink once the handle is back in the pool.
    enum Ending {
        case settled
        case end
        case failure(HotPotatoError)
        /// The body ended early (see ``TransferSink/bodyEndedEarly(_:onlyIfShort:)``).
        case endedEarly(HotPotatoError)
    }

    /// Performs the request on `handle` with the easy interface, which was reset by the caller
    /// and may hold a live connection from an earlier request, then each redirect the policy
    /// follows on the same handle. The final head and body go to the sink as they arrive; the
    /// ending is returned so the engine can put the handle back before reporting it, and the next
    /// request finds the connection free.
    func perform(on handle: UnsafeMutableRawPointer) -> Ending {
        guard !sink.isFinished else { return .settled }
        do {
            try begin(on: handle)
        } catch {
            return .failure(error)
        }
        while true {
            if let ending = conclude(hp_curl_easy_perform(handle)) { return ending }
        }
    }

    /// Configures `handle` for ``request``, the first or the next after a redirect, so that it
    /// can be performed: by `curl_easy_perform`, or by the multi handle. When it throws, the
    /// transfer no longer holds the handle.
    func begin(on handle: UnsafeMutableRawPointer) throws(HotPotatoError) {
        if startTime == 0 { startTime = DispatchTime.now().uptimeNanoseconds }
        self.handle = handle
        do {
            headerList = try configure(handle)
        } catch {
            end()
            throw error
        }
        lastActivity = DispatchTime.now().uptimeNanoseconds
    }

    /// After a perform that ended with `result`: the ending, or `nil` when a redirect is to be
    /// followed, and the handle has been reset and configured for it by ``begin(on:)``.
    func conclude(_ result: Int32) -> Ending? {
        guard let handle else { return .settled }
        guard let next = pendingRedirect, shouldFollow(after: result) else {
            let ending = ending(for: result)
            end()
            return ending
        }
        // The next hop: the same handle, reset (its connections stay alive) and configured
        // anew for the redirect's request.
        end()
        request = next.request
        if !next.keepsBody { requestBody = nil }
        redirectsFollowed += 1
        hp_curl_easy_reset(handle)
        resetForNextResponse()
        do {
            try begin(on: handle)
        } catch {
            return .failure(error)
        }
        return nil
    }

    /// The ending of a transfer the engine stopped (it was cancelled or its handler said stop),
    /// as a callback that aborts it would have.
    func stopped() -> Ending {
        let ending = handle == nil ? .settled : ending(for: Int32(HP_CURLE_WRITE_ERROR))
        end()
        return ending
    }

    /// Frees what the request just performed needed, and forgets its handle.
    func end() {
        if let headerList { hp_curl_slist_free_all(headerList) }
        headerList = nil
        if let proxyHeaderList { hp_curl_slist_free_all(proxyHeaderList) }
        proxyHeaderList = nil
        handle = nil
    }

    /// Whether to send the pending redirect after a perform that ended with `result`: unless the
    /// call is settled or the transfer timed out. An error while the redirect's body was being
    /// dropped does not matter (curl ignores that body too); the next request gets a new
    /// connection.
    private func shouldFollow(after result: Int32) -> Bool {
        !sink.isFinished && !idleTimedOut && bodyFailure == nil && result != Int32(HP_CURLE_OPERATION_TIMEDOUT)
    }

    /// Forgets the previous response before the next request is sent.
    private func resetForNextResponse() {
        responseFields.removeAll(keepingCapacity: true)
        body = nil
        progressCounts = (0, 0)
        pendingRedirect = nil
        droppedRedirectBytes = 0
        errorBuffer[0] = 0
    }

    /// Reports an ending returned by ``perform(on:)``.
    func report(_ ending: Ending) {
        switch ending {
        case .settled: break
        case .end: sink.end()
        case .failure(let error): sink.fail(error)
        case .endedEarly(let cause): sink.bodyEndedEarly(cause, onlyIfShort: false)
        }
    }

    // MARK: - Callbacks (the thread performing the transfer)

    /// What the write callback tells libcurl.
    enum BodyDisposition {
        case accepted
        /// Held back: the multiplexed stream pauses, and libcurl offers the bytes again later.
        case paused
        case aborted
    }

    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> BodyDisposition {
        // A slow handler holds this callback on the easy path (that is the backpressure); the
        // server is not idle meanwhile, so the idle clock starts again once the handler returns.
        defer { lastActivity = DispatchTime.now().uptimeNanoseconds }
        if sink.isFinished { return .aborted }
        if pendingRedirect != nil {
            // A redirect's body is never the content: drop it, reading a short one to the end so
            // that its connection can carry the next request.
            droppedRedirectBytes += bytes.count
            return droppedRedirectBytes <= Self.redirectBodyLimit ? .accepted : .aborted
        }
        if !headDelivered {
            guard deliverHead() else { return .aborted }
        }
        if let handoff { return handoff.offer(bytes) ? .accepted : .paused }
        return sink.receive(borrowing: bytes) ? .accepted : .aborted
    }

    /// Hands libcurl the next bytes of the body. A one-shot stream's producer may make this wait
    /// (the worker thread is the transfer's own); the wait ends when the call is settled, or with
    /// the idle timeout, since nothing moves meanwhile. On the multiplexed path this runs on the
    /// multi thread, which must never wait: only bodies that never do (in memory, a file, a form)
    /// take that path (see ``CurlMultiplexer/multiplexes(_:body:configuration:)``). A body that cannot
    /// be read fails the call with its own error.
    func readBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        if sink.isFinished { return HP_CURL_READFUNC_ABORT }
        guard let body else { return 0 }
        let result = body.read(into: buffer) { sink.isFinished || idleFor(longerThan: idleLimit) }
        switch result {
        case .bytes(let count)?:
            return count
        case .end?:
            return 0
        case .failure(let error)?:
            // Reported as the transfer's ending, by the thread that reports it: on the
            // multiplexed path this is the multi thread, which must not wait for a handler.
            bodyFailure = error
            return HP_CURL_READFUNC_ABORT
        case .wouldBlock?, nil:
            return HP_CURL_READFUNC_ABORT
        }
    }

    /// Rewinds the body for libcurl, which sends it again on a new connection when a kept-alive
    /// one turned out to be closed. A one-shot body read from already cannot be: the call fails
    /// with ``HotPotatoError/Code/bodyNotReplayable`` rather than send the rest as if it were all.
    func seekBody(to offset: Int64) -> Bool {
        guard let body else { return offset == 0 }
        if body.seek(to: offset) { return true }
        guard requestBody?.isReplayable == false else { return false }
        bodyFailure = .bodyNotReplayable(
            "libcurl had to send the request body again (on a new connection, the kept-alive one having closed), but it is "
                + "a one-shot stream that was already read.")
        return false
    }

    /// Whether nothing has moved for longer than `limit` nanoseconds: the transfer is then marked
    /// as timed out.
    private func idleFor(longerThan limit: UInt64) -> Bool {
        let now = DispatchTime.now().uptimeNanoseconds
        guard now > lastActivity, now - lastActivity > limit else { return false }
        idleTimedOut = true
        return true
    }

    /// Whether to go on: `false` once the call is settled (cancelled, rejected, failed), or when
    /// no byte has moved either way for longer than the idle timeout. A multiplexed transfer
    /// whose events wait for their worker is not idle, as an easy one whose handler holds the
    /// callback is not.
    ///
    /// libcurl calls this at least about once a second while it waits, so an idle transfer stops
    /// within about a second of its timeout; libcurl's own low-speed check, which averages over
    /// a window, could take several seconds more.
    func shouldContinue(downloaded: Int64, uploaded: Int64) -> Bool {
        if sink.isFinished { return false }
        let now = DispatchTime.now().uptimeNanoseconds
        if downloaded != progressCounts.downloaded || uploaded != progressCounts.uploaded
            || handoff?.isWaitingForDelivery == true {
            if uploaded != progressCounts.uploaded, let body {
                let (progress, complete) = body.progress(uploaded: uploaded)
                sink.sent(progress, isComplete: complete)
            }
            progressCounts = (downloaded, uploaded)
            lastActivity = now
            return true
        }
        return !idleFor(longerThan: idleLimit)
    }

    // MARK: - Private

    /// Hands the head over: to the sink, or to the handoff (whose worker tells the multi thread
    /// if the sink says stop).
    func deliverHead(_ head: ResponseHead? = nil) -> Bool {
        headDelivered = true
        let head = head ?? currentHead()
        guard let handoff else { return sink.receive(head: head) }
        handoff.push(.head(head))
        return true
    }

    private func ending(for result: Int32) -> Ending {
        if sink.isFinished { return .settled }
        if let redirectFailure { return .failure(redirectFailure) }
        if let bodyFailure { return .failure(bodyFailure) }
        if result == Int32(HP_CURLE_OK) {
            if !headDelivered, !deliverHead() { return .settled }
            return .end
        }
        if idleTimedOut, result == Int32(HP_CURLE_ABORTED_BY_CALLBACK) { return .failure(idleTimeoutError(result)) }
        return failure(for: result)
    }

    // The failures are made apart from `ending(for:)`, which every transfer calls: a function
    // with a `FloatingPointFormatStyle` (a type of a resilient library) in it instantiates the
    // type's metadata on entry, with a look-up of `Double`'s conformances, whichever way it goes.

    @inline(never)
    private func idleTimeoutError(_ result: Int32) -> HotPotatoError {
        let seconds = Double(idleLimit) / 1e9
        let message = "Nothing was received or sent for \(seconds.formatted(.number.precision(.fractionLength(0...3)))) s"
        return HotPotatoError(
            .timedOut, reason: "The request timed out: \(message)", underlying: CurlError(code: Int(result), message: message))
    }

    @inline(never)
    private func failure(for result: Int32) -> Ending {
        if !headDelivered, let handle, let refusal = refusedTunnelHead(handle) {
            return deliverHead(refusal) ? .end : .settled
        }
        let detail = String(cString: errorBuffer)
        let message = detail.isEmpty ? CurlLibrary.describe(result) : detail
        return CurlErrorMapping.map(code: result, message: message)
    }
}
