import CCurl
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension CurlTransfer {
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

    /// At the end of a header block: a 1xx is skipped; a redirect the policy follows becomes the
    /// pending redirect; any other response is the final one, and its head goes to the sink.
    private func endOfHeaderBlock() -> Bool {
        let head = currentHead()
        if (100..<200).contains(head.status) { return true }
        do {
            pendingRedirect = try redirectPolicy.nextRequest(
                after: request, response: head, redirectsFollowed: redirectsFollowed,
                replayableBody: requestBody?.isReplayable ?? true)
        } catch {
            redirectFailure = error
            return false
        }
        if pendingRedirect != nil { return true }
        return deliverHead(head)
    }

    /// The head of the response being received, as the sink and the redirect policy see it. For
    /// a transfer that lasts (an event stream: ``TransferSink/prefersSmallReads``), whose head
    /// lives as long, its fields are a copy sized to them rather than the transfer's array with
    /// its reserve; any other shares that array (one allocation fewer a request).
    func currentHead() -> ResponseHead {
        ResponseHead(
            status: responseCode(), headers: HTTPHeaders(sink.prefersSmallReads ? responseFields.map { $0 } : responseFields),
            url: effectiveURL(),
            requestMethod: request.httpMethod ?? "GET", httpVersion: responseVersion())
    }

    private func responseCode() -> Int {
        var code = 0
        if let handle { hp_curl_getinfo_long(handle, Int32(HP_CURLINFO_RESPONSE_CODE), &code) }
        return code
    }

    /// The version of HTTP the response came in (`CURLINFO_HTTP_VERSION`), or `nil` when libcurl
    /// does not say.
    private func responseVersion() -> HTTPVersion? {
        var version = 0
        guard let handle, hp_curl_getinfo_long(handle, Int32(HP_CURLINFO_HTTP_VERSION), &version) == 0 else { return nil }
        switch version {
        case Int(HP_CURL_HTTP_VERSION_1_0): return .http1_0
        case Int(HP_CURL_HTTP_VERSION_1_1): return .http1_1
        case Int(HP_CURL_HTTP_VERSION_2_0): return .http2
        case Int(HP_CURL_HTTP_VERSION_3): return .http3
        default: return nil
        }
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
