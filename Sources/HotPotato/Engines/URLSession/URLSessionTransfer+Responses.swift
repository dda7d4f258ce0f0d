import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// What URLSession reports, in HotPotato's terms: a response as a ``ResponseHead``, a failed task
// as an ending for the sink.
extension URLSessionTransfer {
    func ending(for error: any Error) -> TransferEnding {
        // A body that could not be read (or sent again) is why the task failed.
        if let failure = state.withLock({ $0.bodyStream?.failure }) { return .failure(failure) }
        var mapped = URLErrorMapping.map(error, secrets: proxyRule.proxySettings())
        let (hasHead, limit) = state.withLock { ($0.hasHead, $0.request.timeoutInterval) }
        if mapped.code == .timedOut {
            // Said as the libcurl engine says it, rather than as NSURLErrorDomain's -1001.
            mapped = HotPotatoError(
                .timedOut, reason: "\(TransportFailureText.timedOut): Nothing was received or sent for \(Self.seconds(limit)) s",
                underlying: mapped.underlying)
        }
        // libcurl's "transfer closed with N bytes remaining" (a short Content-Length body) and
        // "transfer closed with outstanding read data remaining" (a chunked body cut before its
        // last chunk) both reach us as URLError.unknown once the head has arrived. Another
        // failure after the head is an early end if fewer bytes than declared arrived, which the
        // driver, counting them, decides.
        if (error as? URLError)?.code == .unknown && hasHead { return .endedEarly(mapped, onlyIfShort: false) }
        if mapped.code == .transportFailed && hasHead { return .endedEarly(mapped, onlyIfShort: true) }
        if (error as? URLError)?.code == .unknown, !hasHead, Self.looksLikeTLSFailure(mapped.reason) {
            // On Linux, URLSession reports libcurl's TLS errors (a handshake failure, a bad
            // certificate) as URLError.unknown; only OpenSSL's message says what happened.
            return .failure(HotPotatoError(.tlsFailure, reason: "The TLS handshake failed: \(mapped.reason)", underlying: error))
        }
        // A lost connection gets the declared length and the bytes received from the driver.
        return .failure(mapped)
    }

    /// `limit` as the timeout messages write it (`0.5`, `60`).
    @inline(never)
    static func seconds(_ limit: TimeInterval) -> String {
        limit.formatted(.number.precision(.fractionLength(0...3)))
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
