import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// An `https` request through a proxy from the environment, on Linux: FoundationNetworking takes
// every header block libcurl hands over for a response, the proxy's answer to the `CONNECT`
// included ("HTTP/1.1 200 Connection established"), and reports it to the delegate before the
// real response's. Handed on, that 200 without headers would be gated as the response.
extension URLSessionTransfer {
    /// Whether `response` is held back rather than handed over now: a 2xx response of a request
    /// that goes through a tunnel, which may be the proxy's answer to the `CONNECT`.
    ///
    /// A held response is handed over when body bytes arrive or the task completes without error
    /// (it was the real one: a tunnel reused on a kept-alive connection has no `CONNECT`); it is
    /// dropped when another response follows (the real one, handed over as usual) or the task
    /// fails (a TLS failure through the tunnel is reported without a head, as without a proxy).
    /// A refusal (`407`) is not 2xx: it is handed over as the response, as on the curl engine.
    func holdsBack(_ response: URLResponse) -> Bool {
        let url = state.withLock { $0.request.url }
        guard let http = response as? HTTPURLResponse, (200..<300).contains(http.statusCode), proxyRule.tunnels(url) else {
            heldResponse = nil
            return false
        }
        heldResponse = response
        return true
    }

    /// The held response, if any, no longer held.
    func takeHeldResponse() -> URLResponse? {
        defer { heldResponse = nil }
        return heldResponse
    }
}
