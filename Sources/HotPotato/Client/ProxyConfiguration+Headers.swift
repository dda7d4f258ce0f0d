import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ProxyConfiguration {
    /// The name of the request header that is the proxy's alone.
    static let proxyAuthorization = "Proxy-Authorization"

    /// The fields a request through a proxy sends to the proxy only: ``headers``, with `request`'s
    /// own `Proxy-Authorization` in place of one of the same name.
    func proxyHeaderFields(for request: URLRequest) -> HTTPHeaders {
        var fields = headers
        if let value = request.value(forHTTPHeaderField: Self.proxyAuthorization) {
            fields.replaceOrAdd(name: Self.proxyAuthorization, value: value)
        }
        return fields
    }

    /// Whether `name` is a request header field that never goes to the origin.
    static func isForTheProxyOnly(_ name: String) -> Bool {
        name.caseInsensitiveCompare(proxyAuthorization) == .orderedSame
    }
}
