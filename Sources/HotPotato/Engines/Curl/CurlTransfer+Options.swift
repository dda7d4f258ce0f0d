import CCurl
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension CurlTransfer {
    /// The receive buffer libcurl is asked for by a transfer whose handler takes bulk (a file, a
    /// stream, a discarder): larger than its 16 KiB default, so that a fast transfer makes fewer
    /// reads and callbacks.
    static let receiveBufferSize = 512 * 1024
    /// The receive buffer of most other transfers: libcurl's default, so that a small request
    /// holds no more (each transfer has its own, as long as it lasts).
    static let smallReceiveBufferSize = 16 * 1024
    /// The receive buffer of a transfer whose body arrives a little at a time over a long life
    /// (an event stream: ``TransferSink/prefersSmallReads``). libcurl 7.x gives every transfer a
    /// buffer of its own for as long as it lasts, and an open stream touches its first and last
    /// pages: 2 KiB rather than 16 took 10 000 open event streams from 311 to 290 MiB. An event
    /// larger than this arrives over several reads (a 64 MB stream of events read 2 % slower).
    /// Over HTTP/1.1 only: libcurl 7.88's HTTP/2 code parks whatever a frame holds beyond the
    /// stream's buffer and may never hand it over once the connection falls quiet — with 2 KiB,
    /// a stream read over HTTP/2 stopped four events before its end, every time.
    static let sparseReceiveBufferSize = 2 * 1024

    /// Sets every option of this request on a freshly reset handle. Returns the header list made
    /// for it, which must live until the transfer ends and then be freed, or `nil` when there is
    /// none to free.
    func configure(_ handle: UnsafeMutableRawPointer) throws(HotPotatoError) -> UnsafeMutableRawPointer? {
        guard let requestURL = request.url else {
            throw HotPotatoError(.invalidRequest, reason: "The request has no URL.")
        }
        let url = requestURL.absoluteString
        urlText = url
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        func long(_ option: Int32, _ value: Int) { hp_curl_setopt_long(handle, option, value) }
        func string(_ option: Int32, _ value: String?) {
            // libcurl copies string options.
            if let value {
                value.withCString { _ = hp_curl_setopt_pointer(handle, option, $0) }
            } else {
                hp_curl_setopt_pointer(handle, option, nil)
            }
        }

        string(Int32(HP_CURLOPT_URL), url)
        long(Int32(HP_CURLOPT_NOSIGNAL), 1)
        // Every connection's socket is close-on-exec from the start: a process the application
        // spawns meanwhile must not keep it open (and the server from seeing it close).
        hp_curl_setopt_close_on_exec(handle)
        hp_curl_setopt_pointer(handle, Int32(HP_CURLOPT_ERRORBUFFER), errorBuffer)
        configureHTTPVersion(handle)
        long(Int32(HP_CURLOPT_PROTOCOLS), Int(HP_CURLPROTO_HTTP | HP_CURLPROTO_HTTPS))
        long(Int32(HP_CURLOPT_TCP_KEEPALIVE), 1)
        long(Int32(HP_CURLOPT_BUFFERSIZE), receiveBufferSize)
        // A reset handle has no rate limit: until the loop shares the session's and the group's
        // (before the handle first reads), the group's whole limit.
        appliedReceiveRate = 0
        limitReceiveRate(to: sink.receiveRateLimit)

        // Redirects: never followed by libcurl (its default, set again here on purpose), which
        // would keep a custom method and some headers; `conclude(_:)` follows them with
        // RedirectPolicy, one request per perform.
        long(Int32(HP_CURLOPT_FOLLOWLOCATION), 0)

        // Timeouts: the request timeout is an idle timeout, as in URLSession: no byte either way
        // for that long fails. The loop enforces it (see `hasBeenIdle(at:)`), without a timer of
        // libcurl's per transfer: an idle event stream costs nothing while it waits.
        // The resource timeout bounds the whole transfer, every redirect included: each request
        // gets what is left of it.
        let idle = min(request.timeoutInterval > 0 ? request.timeoutInterval : configuration.requestTimeout, 86_400)
        idleLimit = idle > 0 ? UInt64(idle * 1e9) : .max
        // Connecting is bounded by the idle limit, and by the connect timeout when it is shorter.
        let connectLimit = configuration.connectTimeout.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }.map { idle > 0 ? min($0, idle) : $0 } ?? idle
        let connectMilliseconds = Int(min(connectLimit, 86_400) * 1000)
        long(Int32(HP_CURLOPT_CONNECTTIMEOUT_MS), connectLimit > 0 ? max(1, connectMilliseconds) : 0)
        let resourceLimit = Int(min(configuration.resourceTimeout, 30 * 86_400) * 1000)
        let elapsed = Int((DispatchTime.now().uptimeNanoseconds &- startTime) / 1_000_000)
        // 0 is libcurl's "no timeout": what is left is at least 1 ms.
        long(Int32(HP_CURLOPT_TIMEOUT_MS), resourceLimit > 0 ? max(1, resourceLimit - elapsed) : 0)

        // TLS is verified (libcurl's default, set again here on purpose); a custom CA bundle
        // replaces the system's.
        long(Int32(HP_CURLOPT_SSL_VERIFYPEER), 1)
        long(Int32(HP_CURLOPT_SSL_VERIFYHOST), 2)
        if let minimum = configuration.minimumTLSVersion { long(Int32(HP_CURLOPT_SSLVERSION), minimum.curlValue) }
        if let authorities = configuration.certificateAuthorities {
            string(Int32(HP_CURLOPT_CAINFO), authorities.path)
        }

        connectToList = try configureTransportControls(handle, for: requestURL)

        let proxy = try configuration.proxy.selectedProxy(for: requestURL)
        // libcurl copies each string option: the empty proxy that keeps it from the environment
        // is set only when the environment names one (a malloc or two a request otherwise).
        if proxy != nil || Self.environmentNamesAProxy() { try configureProxy(handle, for: proxy) }

        // Transparent decompression, by HotPotato (``ContentDecoder``), not libcurl, which takes a
        // stream cut short for a whole one: libcurl hands the bytes over as they came. Decoded
        // unless the caller asked for a coding of their own (the bytes are then theirs, coded). A
        // request for `identity` (a resumable download's), or one that goes without the field
        // (``Request/withoutHeader(_:)``), still has a coded answer decoded, as URLSession does:
        // the bytes handed on are the resource's, never its gzip. The `Accept-Encoding` sent is
        // the caller's, or the codings decoded here (see `headerList`).
        long(Int32(HP_CURLOPT_HTTP_CONTENT_DECODING), 0)
        let acceptEncoding = request.value(forHTTPHeaderField: "Accept-Encoding")
        handoff.decodesContent = acceptEncoding == nil || acceptEncoding?.trimmingCharacters(in: .whitespaces).lowercased() == "identity"

        hp_curl_setopt_pointer(handle, Int32(HP_CURLOPT_WRITEDATA), userdata)
        hp_curl_setopt_data_callback(handle, Int32(HP_CURLOPT_WRITEFUNCTION), CurlCallbacks.write)
        hp_curl_setopt_pointer(handle, Int32(HP_CURLOPT_HEADERDATA), userdata)
        hp_curl_setopt_data_callback(handle, Int32(HP_CURLOPT_HEADERFUNCTION), CurlCallbacks.header)
        hp_curl_setopt_pointer(handle, Int32(HP_CURLOPT_XFERINFODATA), userdata)
        hp_curl_setopt_xferinfo_callback(handle, CurlCallbacks.progress)
        long(Int32(HP_CURLOPT_NOPROGRESS), 0)

        try configureMethodAndBody(handle, userdata: userdata)
        return try headerList(handle)
    }

    /// The versions of HTTP the request may use, from the configuration's
    /// ``HTTPVersionPolicy``: HTTP/2 over TLS (ALPN) when allowed and the loaded libcurl has it,
    /// HTTP/1.1 otherwise. A multiplexed request waits for a connection to the same origin that
    /// is being set up to learn whether it multiplexes, rather than open one of its own
    /// (`CURLOPT_PIPEWAIT`).
    private func configureHTTPVersion(_ handle: UnsafeMutableRawPointer) {
        hp_curl_setopt_long(handle, Int32(HP_CURLOPT_HTTP_VERSION), Int(offersHTTP2 ? HP_CURL_HTTP_VERSION_2TLS : HP_CURL_HTTP_VERSION_1_1))
        if mayUseHTTP2 { hp_curl_setopt_long(handle, Int32(HP_CURLOPT_PIPEWAIT), 1) }
    }

    /// Whether HTTP/2 is offered: the policy allows it, the loaded libcurl has it, and the
    /// transfer may share its connection (a download's other connections may not).
    private var offersHTTP2: Bool {
        configuration.httpVersionPolicy.allowsHTTP2 && CurlLibrary.supportsHTTP2 && !sink.wantsConnectionOfItsOwn
    }

    /// Whether the request may go over HTTP/2: offered, and over TLS, where ALPN may choose it.
    private var mayUseHTTP2: Bool {
        offersHTTP2 && request.url?.scheme?.lowercased() == "https"
    }

    private func configureMethodAndBody(_ handle: UnsafeMutableRawPointer, userdata: UnsafeMutableRawPointer) throws(HotPotatoError) {
        let method = (request.httpMethod ?? "GET").uppercased()
        let hasBody = requestBody != nil || request.httpBody?.isEmpty == false
        switch method {
        case "GET" where !hasBody:
            hp_curl_setopt_long(handle, Int32(HP_CURLOPT_HTTPGET), 1)
            return
        case "HEAD":
            // A HEAD request with a body never gets here (see RequestDescription.methodRefusingTheBody):
            // libcurl would send the head alone.
            guard !hasBody else {
                throw HotPotatoError(.invalidRequest, reason: "A HEAD request cannot send a body.")
            }
            hp_curl_setopt_long(handle, Int32(HP_CURLOPT_NOBODY), 1)
            return
        default:
            break
        }
        // Any other method sends a body, empty if there is none (`Content-Length: 0`, as URLSession),
        // and so does a GET that has one (as curl sends `-X GET -d …`): the request's `httpBody`,
        // or a streamed body, read afresh from its first byte. Of unknown length (-1), libcurl
        // sends it chunked.
        let source: CurlRequestBody
        if let requestBody {
            source = CurlRequestBody(try requestBody.makeReader())
        } else {
            source = CurlRequestBody(data: request.httpBody ?? Data())
        }
        body = source
        hp_curl_setopt_long(handle, Int32(HP_CURLOPT_UPLOAD), 1)
        hp_curl_setopt_off(handle, Int32(HP_CURLOPT_INFILESIZE_LARGE), source.length ?? -1)
        hp_curl_setopt_pointer(handle, Int32(HP_CURLOPT_READDATA), userdata)
        hp_curl_setopt_data_callback(handle, Int32(HP_CURLOPT_READFUNCTION), CurlCallbacks.read)
        hp_curl_setopt_pointer(handle, Int32(HP_CURLOPT_SEEKDATA), userdata)
        hp_curl_setopt_seek_callback(handle, CurlCallbacks.seek)
        method.withCString { _ = hp_curl_setopt_pointer(handle, Int32(HP_CURLOPT_CUSTOMREQUEST), $0) }
    }

    /// The header list of a request without headers of its own (the commonest), built once and
    /// shared by every transfer: libcurl only reads it.
    private static let defaultHeaderList = UncheckedSendable(makeHeaderList(
        ["User-Agent: \(defaultUserAgent)", "Expect:"] + (ContentDecoder.acceptEncoding.isEmpty ? [] : ["Accept-Encoding: \(ContentDecoder.acceptEncoding)"])))

    private static var defaultUserAgent: String { RequestDescription.defaultUserAgent }

    static func makeHeaderList(_ lines: [String]) -> UnsafeMutableRawPointer? {
        var list: UnsafeMutableRawPointer?
        for line in lines {
            guard let appended = line.withCString({ hp_curl_slist_append(list, $0) }) else {
                if let list { hp_curl_slist_free_all(list) }
                return nil
            }
            list = appended
        }
        return list
    }

    /// Sets the request's headers. Returns the list made for this request, which the caller frees
    /// once the transfer ends, or `nil` when there is none to free.
    private func headerList(_ handle: UnsafeMutableRawPointer) throws(HotPotatoError) -> UnsafeMutableRawPointer? {
        // A `Proxy-Authorization` is the proxy's alone (see `configureProxy`): never sent to the
        // origin, and not at all without a proxy. The body's framing is libcurl's, from the length
        // set above: a `Content-Length` or `Transfer-Encoding` that an interceptor added could
        // announce another length than the bytes that follow.
        let fields = (request.allHTTPHeaderFields ?? [:]).filter {
            !ProxyConfiguration.isForTheProxyOnly($0.key) && !RequestDescription.framingHeaders.contains($0.key.lowercased())
        }
        let omitted = redirectPolicy.omittedHeaders
        if fields.isEmpty, omitted.isEmpty, let shared = Self.defaultHeaderList.value {
            hp_curl_setopt_pointer(handle, Int32(HP_CURLOPT_HTTPHEADER), shared)
            return nil
        }
        var lines: [String] = []
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            lines.append(value.isEmpty ? "\(name);" : "\(name): \(value)")
        }
        let names = Set(fields.keys.map { $0.lowercased() })
        if !names.contains("user-agent"), !omitted.contains("user-agent") { lines.append("User-Agent: \(Self.defaultUserAgent)") }
        if !names.contains("accept-encoding"), !omitted.contains("accept-encoding"), !ContentDecoder.acceptEncoding.isEmpty {
            lines.append("Accept-Encoding: \(ContentDecoder.acceptEncoding)")
        }
        // No `Expect: 100-continue` round trip before a body.
        if !names.contains("expect") { lines.append("Expect:") }
        // `Name:` keeps libcurl's own field of that name (`Accept`, `Host`) from the request.
        for name in omitted.subtracting(names).subtracting(["user-agent", "expect"]).sorted() { lines.append("\(name):") }
        guard let list = Self.makeHeaderList(lines) else {
            throw HotPotatoError(.transportFailed, reason: "libcurl could not build the header list.")
        }
        hp_curl_setopt_pointer(handle, Int32(HP_CURLOPT_HTTPHEADER), list)
        return list
    }

    /// The receive buffer for this transfer. Under a rate limit, a thousandth of the rate (at
    /// least libcurl's minimum, 1 KiB): libcurl reads a socket that stays readable up to a hundred
    /// times before it looks at the rate again, so the buffer bounds that first burst to a tenth
    /// of a second's worth (with 512 KiB reads, an 8 MiB download limited to 4 MiB/s arrived
    /// whole in 50 ms on loopback).
    private var receiveBufferSize: Int {
        let normal = sink.prefersLargeChunks ? Self.receiveBufferSize
            : sink.prefersSmallReads && !mayUseHTTP2 ? Self.sparseReceiveBufferSize : Self.smallReceiveBufferSize
        guard let rate = Self.lowestLimit(sink.receiveRateGroup?.expectedShare, configuration.receiveRateLimit) else { return normal }
        return Int(max(1024, min(Int64(normal), rate / 1000)))
    }

    /// Limits the rate the handle receives at to `rate` bytes a second, `nil` for none (libcurl
    /// stops reading while the transfer is ahead of it): the lower of its shares of the session's
    /// limit and of its group's (see `CurlEventLoop.shareReceiveRate()`). Called on the I/O thread;
    /// sets the option only when the limit changed.
    func limitReceiveRate(to rate: Int64?) {
        guard let handle else { return }
        let limit = rate ?? 0
        guard limit != appliedReceiveRate else { return }
        appliedReceiveRate = limit
        // A curl_off_t option: a long on the 64-bit platforms HotPotato runs on.
        hp_curl_setopt_long(handle, Int32(HP_CURLOPT_MAX_RECV_SPEED_LARGE), Int(limit))
    }

    /// The lowest of the rate limits that are set (above 0), or `nil` when none is.
    private static func lowestLimit(_ first: Int64?, _ second: Int64?) -> Int64? {
        [first, second].compactMap { $0 }.filter { $0 > 0 }.min()
    }
}
