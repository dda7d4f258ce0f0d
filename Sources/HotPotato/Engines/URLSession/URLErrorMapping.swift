import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Maps URLSession's errors to HotPotato's codes.
enum URLErrorMapping {
    /// HotPotato's error for `error`; the texts of `secrets` (the environment's proxy settings,
    /// which libcurl quotes as they are written) and every URL's credentials read `<redacted>`
    /// in it and in its underlying error.
    static func map(_ error: any Error, secrets: [String] = []) -> HotPotatoError {
        guard let urlError = error as? URLError else {
            return HotPotatoError(.transportFailed, reason: "\(TransportFailureText.failed): \(error)", underlying: error)
        }
        let detail = Redaction.redacting(
            secrets,
            in: (urlError.userInfo[NSUnderlyingErrorKey] as? NSError)?.localizedDescription ?? urlError.localizedDescription)
        let code: HotPotatoError.Code
        let reason: String
        switch urlError.code {
        case .cannotConnectToHost:
            (code, reason) = (.connectionRefused, TransportFailureText.refused)
        case .cannotFindHost, .dnsLookupFailed:
            (code, reason) = (.hostNotFound, TransportFailureText.hostNotFound)
        case .timedOut:
            (code, reason) = (.timedOut, TransportFailureText.timedOut)
        case .networkConnectionLost, .notConnectedToInternet:
            (code, reason) = (.connectionLost, TransportFailureText.lost)
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected,
             .clientCertificateRequired:
            (code, reason) = (.tlsFailure, TransportFailureText.handshake)
        case .httpTooManyRedirects, .redirectToNonExistentLocation:
            (code, reason) = (.tooManyRedirects, "Too many redirects")
        case .badURL, .unsupportedURL:
            (code, reason) = (.invalidRequest, TransportFailureText.badURL)
        case .cancelled:
            (code, reason) = (.cancelled, "The request was cancelled")
        case .badServerResponse where isLostConnection(detail), .unknown where isLostConnection(detail):
            // libcurl's CURLE_GOT_NOTHING ("Empty reply from server": the server closed the
            // connection without a byte of reply), CURLE_SEND_ERROR and CURLE_RECV_ERROR (a
            // broken pipe or a reset while the request was sent): what the curl engine reports
            // as a lost connection, and retries as one.
            (code, reason) = (.connectionLost, TransportFailureText.lost)
        case .badServerResponse:
            (code, reason) = (.malformedResponse, TransportFailureText.malformed)
        case .unknown where isMalformedResponse(detail):
            // libcurl's CURLE_WEIRD_SERVER_REPLY ("Invalid Content-Length", a bad status line)
            // reaches URLSession's users as an unknown error with libcurl's message.
            (code, reason) = (.malformedResponse, TransportFailureText.malformed)
        default:
            (code, reason) = (.transportFailed, TransportFailureText.failed)
        }
        return HotPotatoError(code, reason: "\(reason): \(detail)", underlying: withoutCredentials(urlError, secrets: secrets))
    }

    /// `error` with the URLs of its user info (the failing URL, which FoundationNetworking puts
    /// there as it was requested) stripped of their user names and passwords, and its texts
    /// redacted, so that printing the underlying error cannot reveal them (see ``Redaction``).
    static func withoutCredentials(_ error: URLError, secrets: [String]) -> URLError {
        func redacted(_ text: String) -> String { Redaction.redactingCredentials(in: Redaction.redacting(secrets, in: text)) }
        var userInfo: [String: Any] = [:]
        for (key, value) in error.userInfo {
            switch value {
            case let url as URL:
                guard url.user != nil || url.password != nil,
                      var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
                    userInfo[key] = url
                    continue
                }
                components.user = nil
                components.password = nil
                userInfo[key] = components.url
            case let text as String:
                userInfo[key] = redacted(text)
            case let nested as NSError:
                var nestedInfo = nested.userInfo
                for (nestedKey, nestedValue) in nestedInfo {
                    if let text = nestedValue as? String { nestedInfo[nestedKey] = redacted(text) }
                }
                userInfo[key] = NSError(domain: nested.domain, code: nested.code, userInfo: nestedInfo)
            default:
                userInfo[key] = value
            }
        }
        return URLError(error.code, userInfo: userInfo)
    }

    /// Whether libcurl's message says the connection closed or failed under the request.
    static func isLostConnection(_ message: String) -> Bool {
        ["Empty reply from server", "Broken pipe", "Connection reset", "Send failure", "Recv failure",
         "Failed sending data", "Failure when receiving data"].contains { message.localizedCaseInsensitiveContains($0) }
    }

    /// Whether libcurl's message says the response itself was malformed.
    static func isMalformedResponse(_ message: String) -> Bool {
        ["Invalid Content-Length", "Weird server reply", "Unsupported HTTP version", "Invalid status line",
         "Header without colon", "Duplicate Content-Length"].contains { message.localizedCaseInsensitiveContains($0) }
    }
}
