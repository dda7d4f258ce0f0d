import CCurl

/// Maps libcurl's result codes to HotPotato's error codes, the same ones URLSession's errors map to.
enum CurlErrorMapping {
    /// The ending of a transfer that failed with `code`: a failure, or, for libcurl's
    /// `CURLE_PARTIAL_FILE`, a body that ended early, which ``ResponseDriver`` turns into
    /// ``HotPotatoError/Code/truncatedBody`` (the cause's reason is libcurl's message).
    static func map(code: Int32, message: String) -> TransferEnding {
        if code == Int32(HP_CURLE_PARTIAL_FILE) {
            return .endedEarly(
                HotPotatoError(.transportFailed, reason: message, underlying: CurlError(code: Int(code), message: message)),
                onlyIfShort: false)
        }
        return .failure(error(code: code, message: message))
    }

    private static func error(code: Int32, message: String) -> HotPotatoError {
        let underlying = CurlError(code: Int(code), message: message)
        func error(_ code: HotPotatoError.Code, _ reason: String) -> HotPotatoError {
            HotPotatoError(code, reason: "\(reason): \(message)", underlying: underlying)
        }
        switch code {
        case Int32(HP_CURLE_COULDNT_CONNECT):
            return error(.connectionRefused, TransportFailureText.refused)
        case Int32(HP_CURLE_COULDNT_RESOLVE_HOST):
            return error(.hostNotFound, TransportFailureText.hostNotFound)
        case Int32(HP_CURLE_COULDNT_RESOLVE_PROXY):
            // libcurl says this of a proxy URL it cannot parse too (a port out of range).
            if message.contains("proxy syntax") { return error(.invalidRequest, "The proxy's URL cannot be used") }
            return error(.hostNotFound, "The proxy's host name could not be resolved")
        case Int32(HP_CURLE_OPERATION_TIMEDOUT):
            return error(.timedOut, TransportFailureText.timedOut)
        case Int32(HP_CURLE_RECV_ERROR), Int32(HP_CURLE_SEND_ERROR), Int32(HP_CURLE_GOT_NOTHING):
            // With TLS 1.3 a server refuses the client's certificate after the client thinks the
            // handshake is done: the alert arrives with the first read.
            if let refusal = clientCertificateRefusal(message) { return error(.tlsFailure, refusal) }
            // libcurl reports a response it cannot parse as a failed read too: not a lost
            // connection (which a retry policy may send again), but the server's fault.
            if let breach = responseBreach(message) { return error(.malformedResponse, breach) }
            // The driver adds how much of the declared length arrived.
            return error(.connectionLost, TransportFailureText.lost)
        case Int32(HP_CURLE_HTTP2_STREAM):
            // The server reset the request's HTTP/2 stream, or its connection ended under it: for
            // that request, what a lost connection is for HTTP/1.1 (and as transient).
            return error(.connectionLost, "The HTTP/2 stream was reset")
        case Int32(HP_CURLE_HTTP2):
            // libcurl 7.88's answer to a `GOAWAY` whose last stream ID is below the request's
            // (nghttp2 closes the stream as refused, and libcurl reports the session's end as a
            // framing error): the server did not process the request, which RFC 9113 §6.8 lets a
            // client send again. A server breaking the framing itself ends the same way; a lost
            // connection is retried only as the retry policy allows (idempotent methods, by
            // default), so sending such a request again is safe either way.
            return error(.connectionLost, "The HTTP/2 connection ended under the request")
        case Int32(HP_CURLE_SSL_PINNEDPUBKEYNOTMATCH):
            return error(.pinnedKeyMismatch, "The server's public key matches none of the pins for its host")
        case Int32(HP_CURLE_SSL_CERTPROBLEM):
            // The session's own certificate or key: a file that cannot be read, a key that is not
            // the certificate's, a wrong password.
            return error(.tlsFailure, "The client certificate or its key could not be used")
        case Int32(HP_CURLE_SSL_CONNECT_ERROR), Int32(HP_CURLE_PEER_FAILED_VERIFICATION),
             Int32(HP_CURLE_SSL_CIPHER), Int32(HP_CURLE_SSL_CACERT_BADFILE),
             Int32(HP_CURLE_SSL_ISSUER_ERROR), Int32(HP_CURLE_SSL_INVALIDCERTSTATUS), Int32(HP_CURLE_SSL_ENGINE_NOTFOUND):
            if let refusal = clientCertificateRefusal(message) { return error(.tlsFailure, refusal) }
            return error(.tlsFailure, TransportFailureText.handshake)
        case Int32(HP_CURLE_INTERFACE_FAILED):
            return error(.transportFailed, "The local interface or address (Session.Configuration.localAddress) cannot be used")
        case Int32(HP_CURLE_UNSUPPORTED_PROTOCOL), Int32(HP_CURLE_URL_MALFORMAT):
            // The scheme was checked before the request went out: libcurl says this of a status
            // line that is not HTTP/1.x or HTTP/2 ("Unsupported HTTP version in response", a
            // reply without one, "Received HTTP/0.9 when not allowed"), or whose code is not
            // three digits ("Unsupported response code in HTTP response").
            if let breach = responseBreach(message) { return error(.malformedResponse, breach) }
            return error(.invalidRequest, TransportFailureText.badURL)
        case Int32(HP_CURLE_OUT_OF_MEMORY):
            // libcurl's one limit on a header line (100 KB) fails the transfer this way.
            return error(.malformedResponse, "A line of the response's head is longer than libcurl takes (100 KB), or libcurl ran out of memory")
        case Int32(HP_CURLE_WEIRD_SERVER_REPLY):
            return error(.malformedResponse, TransportFailureText.malformed)
        case Int32(HP_CURLE_BAD_CONTENT_ENCODING):
            return error(.malformedResponse, "The body's content coding (gzip, deflate, br, zstd) is corrupt or unknown")
        case Int32(HP_CURLE_READ_ERROR):
            return error(.invalidRequest, "Reading the request body failed")
        default:
            return error(.transportFailed, TransportFailureText.failed)
        }
    }

    /// What libcurl's `message` says the response broke, when it says the server sent what HTTP
    /// does not allow: a chunked body's framing, a head over libcurl's 300 KB, a status line
    /// that is not HTTP's.
    static func responseBreach(_ message: String) -> String? {
        if message.contains("chunked-encoding") { return "The response's chunked body is malformed" }
        if message.contains("Too large response headers") { return "The response's head is larger than libcurl takes (300 KB)" }
        if message.contains("in response") || message.contains("in HTTP response") || message.contains("HTTP/0.9")
            || message.contains("Invalid status line") {
            return "The response's status line is not HTTP/1.x or HTTP/2's"
        }
        return nil
    }

    /// What a TLS alert in libcurl's `message` says about the client's certificate, when it is
    /// one a server sends for it (RFC 8446 §6.2): it required one that was not sent, or did not
    /// accept the one that was.
    static func clientCertificateRefusal(_ message: String) -> String? {
        let message = message.lowercased()
        if message.contains("alert certificate required") {
            return "The server requires a client certificate (Session.Configuration.clientCertificate) and none was sent"
        }
        let refusals = ["alert unknown ca", "alert bad certificate", "alert certificate unknown", "alert certificate revoked",
                        "alert certificate expired", "alert unsupported certificate", "alert access denied"]
        guard refusals.contains(where: message.contains) else { return nil }
        return "The server refused the client certificate"
    }
}
