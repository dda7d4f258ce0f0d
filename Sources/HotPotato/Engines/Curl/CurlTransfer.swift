import CCurl
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request performed with libcurl's easy interface on a worker thread of ``CurlEngine``.
///
/// libcurl's callbacks run on that thread, inside `curl_easy_perform`, and hand everything to the
/// ``TransferSink`` synchronously: the head once the final response's headers are complete, each
/// body chunk as it is received, then the end or the failure. A handler that
/// takes its time holds the callback, libcurl stops reading the socket, and TCP flow control
/// slows the sender: nothing piles up in memory. Returning 0 from a callback (or non-zero from the
/// progress callback) aborts the transfer, which is how a rejection, a handler failure or a
/// cancellation stops it.
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
    private let redirectPolicy: RedirectPolicy

    // Touched only on the worker thread, inside `perform(on:)`.
    private var handle: UnsafeMutableRawPointer?
    /// The header fields of the response being received, in order; room for a typical head is
    /// made once per transfer.
    private var responseFields: [HTTPHeaders.Field] = []
    private var headDelivered = false
    /// The URL of the request being sent, as given to libcurl; set by `configure(_:)`.
    var urlText: String?
    /// The request body being sent, if any; set by `configure(_:)`.
    var body: CurlRequestBody?
    /// The idle timeout, in nanoseconds; set by `configure(_:)`.
    var idleLimit: UInt64 = .max
    /// When bytes last moved either way, or a callback that had held the transfer returned.
    private var lastActivity: UInt64 = 0
    /// The byte counts of the last progress call, to tell activity from waiting.
    private var progressCounts: (downloaded: Int64, uploaded: Int64) = (0, 0)
    /// Whether the transfer was stopped for being idle longer than the timeout.
    private var idleTimedOut = false
    private var errorBuffer = [CChar](repeating: 0, count: Int(HP_CURL_ERROR_SIZE))
    /// When the first request started, for the resource timeout, which spans every redirect.
    private(set) var startTime: UInt64 = 0
    /// How many redirects this transfer has followed.
    private var redirectsFollowed = 0
    /// The request to send next, once the current response's head has turned out to be a
    /// redirect the policy follows; its body is then dropped.
    private var pendingRedirect: (request: URLRequest, keepsBody: Bool)?
    /// Why the current response's redirect cannot be followed, when the policy refused it.
    private var redirectFailure: HotPotatoError?
    /// The body bytes of the redirect being dropped so far.
    private var droppedRedirectBytes = 0

    /// The most body bytes of a redirect that are read (and dropped) so that its connection can be
    /// reused; a longer body is abandoned, and its connection with it.
    static let redirectBodyLimit = 64 * 1024

    init(
        request: URLRequest, body: RequestBody?, sink: any TransferSink, configuration: Session.Configuration,
        redirects: RedirectPolicy
    ) {
        self.request = request
        requestBody = body
        self.sink = sink
        self.configuration = configuration
        redirectPolicy = redirects
        responseFields.reserveCapacity(16)
    }

    /// How a transfer ended, to be reported to the sink once the handle is back in the pool.
    enum Ending {
        case settled
        case end
        case failure(HotPotatoError)
        /// The body ended early (see ``TransferSink/bodyEndedEarly(_:onlyIfShort:)``).
        case endedEarly(HotPotatoError)
    }

    /// Performs the request on `handle`, which was reset by the caller and may hold a live
    /// connection from an earlier request, then each redirect the policy follows on the same
    /// handle. The final head and body go to the sink as they arrive; the ending is returned so
    /// the engine can put the handle back before reporting it, and the next request finds the
    /// connection free.
    func perform(on handle: UnsafeMutableRawPointer) -> Ending {
        guard !sink.isFinished else { return .settled }
        self.handle = handle
        defer { self.handle = nil }
        startTime = DispatchTime.now().uptimeNanoseconds
        while true {
            let result: Int32
            do {
                result = try performOnce(on: handle)
            } catch {
                return .failure(error)
            }
            guard let next = pendingRedirect, shouldFollow(after: result) else {
                return ending(for: result)
            }
            // The next hop: the same handle, reset (its connections stay alive) and configured
            // anew for the redirect's request.
            request = next.request
            if !next.keepsBody { requestBody = nil }
            redirectsFollowed += 1
            hp_curl_easy_reset(handle)
            resetForNextResponse()
        }
    }

    /// Configures `handle` for ``request`` and performs it once.
    private func performOnce(on handle: UnsafeMutableRawPointer) throws(HotPotatoError) -> Int32 {
        var headerList: UnsafeMutableRawPointer?
        defer { if let headerList { hp_curl_slist_free_all(headerList) } }
        headerList = try configure(handle)
        lastActivity = DispatchTime.now().uptimeNanoseconds
        return errorBuffer.withUnsafeMutableBufferPointer { buffer in
            hp_curl_setopt_pointer(handle, Int32(HP_CURLOPT_ERRORBUFFER), buffer.baseAddress)
            defer { hp_curl_setopt_pointer(handle, Int32(HP_CURLOPT_ERRORBUFFER), nil) }
            return hp_curl_easy_perform(handle)
        }
    }

    /// Whether to send the pending redirect after a perform that ended with `result`: unless the
    /// call is settled or the transfer timed out. An error while the redirect's body was being
    /// dropped does not matter (curl ignores that body too); the next request gets a new
    /// connection.
    private func shouldFollow(after result: Int32) -> Bool {
        !sink.isFinished && !idleTimedOut && result != Int32(HP_CURLE_OPERATION_TIMEDOUT)
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

    // MARK: - Callbacks (worker thread)

    /// Takes one header line as libcurl hands it over (status line, field, folded continuation,
    /// or the empty line that ends a block, each with its CRLF). Parsed byte by byte: a field's
    /// name and value lose the spaces and tabs around them (RFC 9110's optional whitespace), and
    /// are decoded as UTF-8, invalid bytes replaced.
    func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Bool {
        // Delivering the head runs the handler's gate, which may take its time: the idle clock
        // starts again once it returns.
        defer { lastActivity = DispatchTime.now().uptimeNanoseconds }
        if headDelivered || pendingRedirect != nil { return true }  // trailers
        if Self.startsWithHTTPSlash(bytes) {
            // A status line: a new header block (a 1xx's, a redirect's, or the final one).
            responseFields.removeAll(keepingCapacity: true)
            return true
        }
        let line = Self.trimming(bytes, where: { $0 == 0x0D || $0 == 0x0A })
        if line.isEmpty {
            return endOfHeaderBlock()
        }
        if ASCII.isWhitespace(line[line.startIndex]) {
            // An obsolete folded continuation line.
            if let last = responseFields.popLast() {
                let more = Self.text(Self.trimming(line, where: ASCII.isWhitespace))
                responseFields.append(HTTPHeaders.Field(name: last.name, value: last.value + " " + more))
            }
            return true
        }
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            let name = Self.trimming(line[line.startIndex..<colon], where: ASCII.isWhitespace)
            let value = Self.trimming(line[(colon + 1)...], where: ASCII.isWhitespace)
            if !name.isEmpty { responseFields.append(HTTPHeaders.Field(name: Self.text(name), value: Self.text(value))) }
        }
        return true
    }

    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        // A slow handler holds this callback (that is the backpressure); the server is not idle
        // meanwhile, so the idle clock starts again once the handler returns.
        defer { lastActivity = DispatchTime.now().uptimeNanoseconds }
        if sink.isFinished { return false }
        if pendingRedirect != nil {
            // A redirect's body is never the content: drop it, reading a short one to the end so
            // that its connection can carry the next request.
            droppedRedirectBytes += bytes.count
            return droppedRedirectBytes <= Self.redirectBodyLimit
        }
        if !headDelivered {
            guard deliverHead() else { return false }
        }
        return sink.receive(borrowing: bytes)
    }

    /// Hands libcurl the next bytes of the body. A one-shot stream's producer may make this wait
    /// (the worker thread is the transfer's own); the wait ends when the call is settled, or with
    /// the idle timeout, since nothing moves meanwhile. A body that cannot be read fails the call
    /// with its own error.
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
            sink.fail(error)
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
        sink.fail(.bodyNotReplayable(
            "libcurl had to send the request body again (on a new connection, the kept-alive one having closed), but it is "
                + "a one-shot stream that was already read."))
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
    /// no byte has moved either way for longer than the idle timeout.
    ///
    /// libcurl calls this at least about once a second while it waits, so an idle transfer stops
    /// within about a second of its timeout; libcurl's own low-speed check, which averages over
    /// a window, could take several seconds more.
    func shouldContinue(downloaded: Int64, uploaded: Int64) -> Bool {
        if sink.isFinished { return false }
        let now = DispatchTime.now().uptimeNanoseconds
        if downloaded != progressCounts.downloaded || uploaded != progressCounts.uploaded {
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

    /// At the end of a header block: a 1xx is skipped; a redirect the policy follows becomes the
    /// pending redirect; any other response is the final one, and its head goes to the sink.
    private func endOfHeaderBlock() -> Bool {
        let head = currentHead()
        if (100..<200).contains(head.status) { return true }
        do {
            pendingRedirect = try redirectPolicy.nextRequest(
                after: request, response: head, redirectsFollowed: redirectsFollowed, replayableBody: requestBody?.isReplayable ?? true)
        } catch {
            redirectFailure = error
            return false
        }
        if pendingRedirect != nil { return true }
        return deliverHead(head)
    }

    /// The head of the response being received, as the sink and the redirect policy see it.
    private func currentHead() -> ResponseHead {
        ResponseHead(status: responseCode(), headers: HTTPHeaders(responseFields), url: effectiveURL(), requestMethod: request.httpMethod ?? "GET")
    }

    private func deliverHead(_ head: ResponseHead? = nil) -> Bool {
        headDelivered = true
        return sink.receive(head: head ?? currentHead())
    }

    private func ending(for result: Int32) -> Ending {
        if sink.isFinished { return .settled }
        if let redirectFailure { return .failure(redirectFailure) }
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
        let detail = errorBuffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        let message = detail.isEmpty ? CurlLibrary.describe(result) : detail
        return CurlErrorMapping.map(code: result, message: message)
    }

    private func responseCode() -> Int {
        var code = 0
        if let handle { hp_curl_getinfo_long(handle, Int32(HP_CURLINFO_RESPONSE_CODE), &code) }
        return code
    }

    /// The URL that answered: libcurl's effective URL, which is the request's own unless libcurl
    /// normalised it (it follows no redirect itself), so it is parsed only when it differs.
    private func effectiveURL() -> URL? {
        var pointer: UnsafePointer<CChar>?
        guard let handle, hp_curl_getinfo_string(handle, Int32(HP_CURLINFO_EFFECTIVE_URL), &pointer) == 0,
              let pointer else { return request.url }
        if let sent = urlText, sent.withCString({ strcmp($0, pointer) == 0 }) { return request.url }
        return URL(string: String(cString: pointer)) ?? request.url
    }
}

extension CurlTransfer {
    /// Whether a header line is a status line (`HTTP/1.1 200 OK`).
    fileprivate static func startsWithHTTPSlash(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 5 && bytes[0] == UInt8(ascii: "H") && bytes[1] == UInt8(ascii: "T")
            && bytes[2] == UInt8(ascii: "T") && bytes[3] == UInt8(ascii: "P") && bytes[4] == UInt8(ascii: "/")
    }

    /// `bytes` without the leading and trailing bytes that `drop` matches.
    fileprivate static func trimming(_ bytes: Slice<UnsafeRawBufferPointer>, where drop: (UInt8) -> Bool) -> Slice<UnsafeRawBufferPointer> {
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, drop(bytes[start]) { start += 1 }
        while end > start, drop(bytes[end - 1]) { end -= 1 }
        return bytes[start..<end]
    }

    fileprivate static func trimming(_ bytes: UnsafeRawBufferPointer, where drop: (UInt8) -> Bool) -> Slice<UnsafeRawBufferPointer> {
        trimming(bytes[...], where: drop)
    }

    /// The bytes as UTF-8 text, invalid sequences replaced.
    fileprivate static func text(_ bytes: Slice<UnsafeRawBufferPointer>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes), as: UTF8.self)
    }
}
