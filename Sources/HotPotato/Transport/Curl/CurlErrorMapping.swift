import CCurl

/// Maps libcurl's result codes to HotPotato's error codes, the same ones URLSession's errors map to.
enum CurlErrorMapping {
    static func map(
        code: Int32, message: String, headReceived: Bool, expectedLength: Int64?, bytesDelivered: Int64
    ) -> HotPotatoError {
        let underlying = CurlError(code: Int(code), message: message)
        func error(_ code: HotPotatoError.Code, _ reason: String) -> HotPotatoError {
            HotPotatoError(code, reason: "\(reason): \(message)", underlying: underlying)
        }
        switch code {
        case Int32(HP_CURLE_COULDNT_CONNECT):
            return error(.connectionRefused, "The server refused the connection")
        case Int32(HP_CURLE_COULDNT_RESOLVE_HOST):
            return error(.hostNotFound, "The host name could not be resolved")
        case Int32(HP_CURLE_OPERATION_TIMEDOUT):
            return error(.timedOut, "The request timed out")
        case Int32(HP_CURLE_PARTIAL_FILE):
            let declared = expectedLength.map { " of the \($0) bytes its Content-Length declared" } ?? ""
            var truncated = error(.truncatedBody, "The body ended after \(bytesDelivered) bytes\(declared)")
            truncated.limit = expectedLength
            truncated.byteCount = bytesDelivered
            truncated.byteOffset = bytesDelivered
            return truncated
        case Int32(HP_CURLE_RECV_ERROR), Int32(HP_CURLE_SEND_ERROR), Int32(HP_CURLE_GOT_NOTHING):
            var lost = error(.connectionLost, "The connection was lost")
            if headReceived, let expectedLength {
                lost.limit = expectedLength
                lost.byteCount = bytesDelivered
            }
            return lost
        case Int32(HP_CURLE_SSL_CONNECT_ERROR), Int32(HP_CURLE_PEER_FAILED_VERIFICATION),
             Int32(HP_CURLE_SSL_CERTPROBLEM), Int32(HP_CURLE_SSL_CIPHER), Int32(HP_CURLE_SSL_CACERT_BADFILE),
             Int32(HP_CURLE_SSL_ISSUER_ERROR), Int32(HP_CURLE_SSL_PINNEDPUBKEYNOTMATCH),
             Int32(HP_CURLE_SSL_INVALIDCERTSTATUS), Int32(HP_CURLE_SSL_ENGINE_NOTFOUND):
            return error(.tlsFailure, "The TLS handshake failed")
        case Int32(HP_CURLE_UNSUPPORTED_PROTOCOL), Int32(HP_CURLE_URL_MALFORMAT):
            return error(.invalidRequest, "The URL cannot be requested")
        case Int32(HP_CURLE_WEIRD_SERVER_REPLY):
            return error(.malformedResponse, "The server's response breaks HTTP")
        case Int32(HP_CURLE_READ_ERROR):
            return error(.invalidRequest, "Reading the request body failed")
        default:
            return error(.transportFailed, "The transfer failed")
        }
    }
}
