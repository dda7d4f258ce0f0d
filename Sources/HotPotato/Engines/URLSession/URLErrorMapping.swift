import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Maps URLSession's errors to HotPotato's codes.
enum URLErrorMapping {
    static func map(_ error: any Error) -> HotPotatoError {
        guard let urlError = error as? URLError else {
            return HotPotatoError(.transportFailed, reason: "The transfer failed: \(error)", underlying: error)
        }
        let detail = (urlError.userInfo[NSUnderlyingErrorKey] as? NSError)?.localizedDescription
            ?? urlError.localizedDescription
        let code: HotPotatoError.Code
        let reason: String
        switch urlError.code {
        case .cannotConnectToHost:
            (code, reason) = (.connectionRefused, "The server refused the connection")
        case .cannotFindHost, .dnsLookupFailed:
            (code, reason) = (.hostNotFound, "The host name could not be resolved")
        case .timedOut:
            (code, reason) = (.timedOut, "The request timed out")
        case .networkConnectionLost, .notConnectedToInternet:
            (code, reason) = (.connectionLost, "The connection was lost")
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected,
             .clientCertificateRequired:
            (code, reason) = (.tlsFailure, "The TLS handshake failed")
        case .httpTooManyRedirects, .redirectToNonExistentLocation:
            (code, reason) = (.tooManyRedirects, "Too many redirects")
        case .badURL, .unsupportedURL:
            (code, reason) = (.invalidRequest, "The URL cannot be requested")
        case .cancelled:
            (code, reason) = (.cancelled, "The request was cancelled")
        case .badServerResponse:
            (code, reason) = (.malformedResponse, "The server's response breaks HTTP")
        case .unknown where isMalformedResponse(detail):
            // libcurl's CURLE_WEIRD_SERVER_REPLY ("Invalid Content-Length", a bad status line)
            // reaches URLSession's users as an unknown error with libcurl's message.
            (code, reason) = (.malformedResponse, "The server's response breaks HTTP")
        default:
            (code, reason) = (.transportFailed, "The transfer failed")
        }
        return HotPotatoError(code, reason: "\(reason): \(detail)", underlying: urlError)
    }

    /// Whether libcurl's message says the response itself was malformed.
    static func isMalformedResponse(_ message: String) -> Bool {
        ["Invalid Content-Length", "Weird server reply", "Unsupported HTTP version", "Invalid status line",
         "Header without colon", "Duplicate Content-Length"].contains { message.localizedCaseInsensitiveContains($0) }
    }
}
