import CCurl
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request performed with libcurl on behalf of ``CurlEngine``, on its ``CurlEventLoop``.
///
/// The handle joins the loop's multi handle, whose I/O thread runs libcurl's callbacks: they queue
/// the head, the body and the ending in the transfer's ``CurlHandoff``, which a ``DeliveryPool``
/// thread delivers to the ``TransferSink``. A handler that falls behind pauses the transfer
/// (libcurl stops reading: TCP flow control, or the HTTP/2 window, holds the rest on the server)
/// until it catches up. Everything of the transfer but the handoff is touched only on the I/O
/// thread.
///
/// Returning 0 from a callback (or non-zero from the progress callback) aborts the transfer,
/// which is how a rejection, a handler failure or a cancellation stops it when a callback comes;
/// the loop removes it otherwise.
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
    /// The session's configuration, read where the loop keeps it: a transfer holds no copy of
    /// its own (an open stream's memory is the transfer's, and the copy was a fifth of it).
    var configuration: Session.Configuration {
        _read { yield loop.configuration }
    }
    let redirectPolicy: RedirectPolicy
    /// Where the callbacks queue the transfer's events for its handler.
    let handoff: CurlHandoff
    /// The handler takes bulk: body bytes are batched for a few reads before a delivery thread
    /// is woken for them (see ``CurlHandoff/offer(_:batching:)``).
    private let batchesDeliveries: Bool
    /// The loop carrying the transfer, to ask it to resume or stop the transfer: held strongly,
    /// since the transfer's last events may be delivered after its session is gone (the loop
    /// holds the transfer only while it is active).
    private let loop: CurlEventLoop

    // Touched only by the I/O thread.
    /// The handle the transfer is performed on, while it is.
    private(set) var handle: UnsafeMutableRawPointer?
    /// The receive rate set on the handle (`CURLOPT_MAX_RECV_SPEED_LARGE`), 0 for none. I/O
    /// thread only.
    var appliedReceiveRate: Int64 = 0
    /// The header list of the request being sent, freed when its perform ends.
    private var headerList: UnsafeMutableRawPointer?
    /// The header list for the proxy alone (`CURLOPT_PROXYHEADER`), freed when the perform ends.
    var proxyHeaderList: UnsafeMutableRawPointer?
    /// The address overrides (`CURLOPT_CONNECT_TO`), freed when the perform ends.
    var connectToList: UnsafeMutableRawPointer?
    /// The header fields of the response being received, in order; room for a typical head is
    /// made once per transfer.
    var responseFields: [HTTPHeaders.Field] = []
    var headDelivered = false
    /// The TLS version and cipher suite of the final response's connection, taken as its head
    /// arrives (libcurl lets go of the connection before the transfer's end): OpenSSL's static
    /// names, not copied until the measurements are reported.
    var tlsFacts: (version: UnsafePointer<CChar>?, cipher: UnsafePointer<CChar>?) = (nil, nil)
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
    /// How many connections its requests have made so far (`CURLINFO_NUM_CONNECTS`, summed).
    var connectionsMade = 0
    /// The request to send next, once the current response's head has turned out to be a
    /// redirect the policy follows; its body is then dropped.
    var pendingRedirect: (request: URLRequest, keepsBody: Bool)?
    /// Why the current response's redirect cannot be followed, when the policy refused it.
    var redirectFailure: HotPotatoError?
    /// Why the request body could not be sent (unreadable, or a one-shot body libcurl had to
    /// rewind): the transfer's ending.
    private var bodyFailure: HotPotatoError?
    /// The write callback paused receiving (the handoff was full), and no resume came since.
    var receivePaused = false
    /// The read callback paused sending (the body's producer had nothing yet), and no wake-up
    /// came since.
    var sendPaused = false
    /// The body bytes of the redirect being dropped so far.
    private var droppedRedirectBytes = 0

    /// The most body bytes of a redirect that are read (and dropped) so that its connection can be
    /// reused; a longer body is abandoned, and its connection with it.
    static let redirectBodyLimit = 64 * 1024

    /// Creates a transfer to be carried by `loop`.
    init(
        request: URLRequest, body: RequestBody?, sink: any TransferSink, redirects: RedirectPolicy, loop: CurlEventLoop
    ) {
        self.request = request
        requestBody = body
        self.sink = sink
        redirectPolicy = redirects
        self.loop = loop
        handoff = CurlHandoff(sink: sink, deliversInline: loop.deliversInline)
        batchesDeliveries = sink.prefersLargeChunks
        errorBuffer = .allocate(capacity: Int(HP_CURL_ERROR_SIZE))
        errorBuffer.initialize(to: 0)
        responseFields.reserveCapacity(16)
        handoff.transfer = self
    }

    deinit {
        errorBuffer.deallocate()
    }

    // MARK: - Any thread

    /// Asks the loop to stop the transfer (its handler said stop, or its call was settled).
    func stop() {
        loop.stop(self)
    }

    /// Asks the loop to resume receiving: the handler caught up.
    func resumeReceiving() {
        loop.resumeReceiving(self)
    }

    // MARK: - The I/O thread

    /// Configures `handle` for ``request``, the first or the next after a redirect, so that the
    /// multi handle can perform it. When it throws, the transfer no longer holds the handle.
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
    func conclude(_ result: Int32) -> TransferEnding? {
        guard let handle else { return .settled }
        connectionsMade += Self.connectionsMade(by: handle)
        guard let next = pendingRedirect, shouldFollow(after: result) else {
            if result == HP_CURLE_OK { reportLastUpload(handle) }
            reportMeasurements(handle)
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

    /// Reports the request body's progress once more, as the transfer ends, before the call can
    /// complete: libcurl calls its progress function when it has sent bytes, but the last call
    /// may come after the response has ended the transfer (a server that answered as the body's
    /// last bytes went), and a report after the call completed is dropped. The upload's last,
    /// complete report must come before the call completes.
    private func reportLastUpload(_ handle: UnsafeMutableRawPointer) {
        guard body != nil else { return }
        var uploaded: Int64 = 0
        guard hp_curl_getinfo_off(handle, Int32(HP_CURLINFO_SIZE_UPLOAD_T), &uploaded) == HP_CURLE_OK else { return }
        _ = shouldContinue(downloaded: progressCounts.downloaded, uploaded: uploaded)
    }

    /// The ending of a transfer the engine stopped (it was cancelled or its handler said stop),
    /// as a callback that aborts it would have.
    func stopped() -> TransferEnding {
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
        if let connectToList { hp_curl_slist_free_all(connectToList) }
        connectToList = nil
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

    /// The ending of a transfer the loop stopped for moving nothing for longer than its timeout.
    func timedOut() -> TransferEnding {
        idleTimedOut = true
        // What was measured before the silence, for the error's timings.
        if let handle, !sink.isFinished { reportMeasurements(handle) }
        let ending: TransferEnding = sink.isFinished ? .settled : .failure(idleTimeoutError(Int32(HP_CURLE_OPERATION_TIMEDOUT)))
        end()
        return ending
    }

    /// Whether the transfer has moved no byte either way for longer than its idle timeout at
    /// `now` (uptime nanoseconds), while waiting for the network rather than for its handler; or
    /// its call is settled without a callback to notice (a paused transfer).
    func hasBeenIdle(at now: UInt64) -> Bool {
        if sink.isFinished { return true }
        guard now > lastActivity, now - lastActivity > idleLimit else { return false }
        if handoff.isWaitingForDelivery {
            // A handler taking its time is no idle server: the clock starts again when it is done.
            lastActivity = now
            return false
        }
        return true
    }

    /// Lets libcurl go on receiving (`receiving`) or sending: the handler caught up, or the body's
    /// producer has more.
    func unpause(receiving: Bool) {
        guard let handle else { return }
        if receiving {
            // The handler caught up: the wait was its, not the server's.
            receivePaused = false
            lastActivity = DispatchTime.now().uptimeNanoseconds
        } else {
            // A body that wakes the loop without bytes (a FIFO looked at again) is still silent:
            // only bytes sent count as activity.
            sendPaused = false
        }
        let state = (receivePaused ? Int32(HP_CURLPAUSE_RECV) : 0) | (sendPaused ? Int32(HP_CURLPAUSE_SEND) : 0)
        hp_curl_easy_pause(handle, state)
    }

    // MARK: - Callbacks (the thread performing the transfer)

    /// What the write callback tells libcurl.
    enum BodyDisposition {
        case accepted
        /// Held back: the transfer pauses, and libcurl offers the bytes again once resumed.
        case paused
        case aborted
    }

    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> BodyDisposition {
        lastActivity = DispatchTime.now().uptimeNanoseconds
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
        switch handoff.offer(bytes, batching: batchesDeliveries || handoff.deliversWholeResponses) {
        case .queued:
            // In a lane the handler ran meanwhile: a slow write is not an idle server.
            if handoff.deliversInline { lastActivity = DispatchTime.now().uptimeNanoseconds }
            return .accepted
        case .batched:
            loop.flushBeforeWaiting(handoff)
            return .accepted
        case .refused:
            receivePaused = true
            return .paused
        }
    }

    /// Hands libcurl the next bytes of the body, never waiting: when a one-shot stream's producer
    /// (or a FIFO's writer) has nothing yet, sending pauses (`CURL_READFUNC_PAUSE`) until the body
    /// wakes the loop; a body that stays silent longer than the idle timeout fails the call with
    /// ``HotPotatoError/Code/timedOut``. A body that cannot be read fails the call with its own
    /// error, reported as the transfer's ending.
    func readBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        if sink.isFinished { return HP_CURL_READFUNC_ABORT }
        guard let body else { return 0 }
        let loop = loop
        switch body.read(into: buffer, wake: { [weak self] in if let self { loop.resumeSending(self) } }) {
        case .bytes(let count):
            lastActivity = DispatchTime.now().uptimeNanoseconds
            return count
        case .end:
            return 0
        case .failure(let error):
            bodyFailure = error
            return HP_CURL_READFUNC_ABORT
        case .wouldBlock:
            sendPaused = true
            return HP_CURL_READFUNC_PAUSE
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

    /// Whether to go on: `false` once the call is settled (cancelled, rejected, failed). Notes
    /// activity (bytes moved either way) for the idle timeout, which the loop enforces (see
    /// ``hasBeenIdle(at:)``), and reports the request body's progress.
    func shouldContinue(downloaded: Int64, uploaded: Int64) -> Bool {
        if sink.isFinished { return false }
        if downloaded != progressCounts.downloaded || uploaded != progressCounts.uploaded {
            if uploaded != progressCounts.uploaded, let body {
                let (progress, complete) = body.progress(uploaded: uploaded)
                sink.sent(progress, isComplete: complete)
            }
            progressCounts = (downloaded, uploaded)
            lastActivity = DispatchTime.now().uptimeNanoseconds
        }
        return true
    }

    // MARK: - Private

    /// Hands the head to the handoff (whose delivering thread asks the loop to stop the
    /// transfer if the sink says stop).
    func deliverHead(_ head: ResponseHead? = nil) -> Bool {
        headDelivered = true
        if let handle {
            var version: UnsafePointer<CChar>?
            var cipher: UnsafePointer<CChar>?
            _ = hp_curl_tls_facts(handle, &version, &cipher)
            tlsFacts = (version, cipher)
            if sink.measuresAtHead { reportMeasurements(handle, atHead: true) }
        }
        let head = head ?? currentHead()
        // The transfer lets go of its fields: the head has them (``currentHead()``).
        responseFields = []
        handoff.responseArrived(over: head.httpVersion)
        loop.queue(.head(head), of: self)
        return true
    }

    private func ending(for result: Int32) -> TransferEnding {
        if sink.isFinished { return .settled }
        if let redirectFailure { return .failure(redirectFailure) }
        if let bodyFailure { return .failure(bodyFailure) }
        if result == Int32(HP_CURLE_OK) {
            // libcurl (and the curl tool) end a transfer whose connection closed inside the head
            // as a success: a status line and no empty line after the fields is no response.
            guard headDelivered else { return .failure(Self.headCutShort()) }
            return .finished
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
    private static func headCutShort() -> HotPotatoError {
        HotPotatoError(
            .connectionLost,
            reason: "\(TransportFailureText.lost): the connection closed before the response's head ended (no empty line after its fields).")
    }

    @inline(never)
    private func failure(for result: Int32) -> TransferEnding {
        if !headDelivered, let handle, let refusal = refusedTunnelHead(handle) {
            return deliverHead(refusal) ? .finished : .settled
        }
        let detail = String(cString: errorBuffer)
        let message = detail.isEmpty ? CurlLibrary.describe(result) : detail
        return CurlErrorMapping.map(code: result, message: message)
    }
}
