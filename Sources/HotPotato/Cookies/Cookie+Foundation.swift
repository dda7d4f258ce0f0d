import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Cookie {
    /// The `HttpOnly` property key, which Foundation reads and writes but does not name publicly
    /// on every platform.
    static let httpOnlyKey = HTTPCookiePropertyKey("HttpOnly")
    /// The creation date Foundation records (seconds since 2001), where it does.
    static let createdKey = HTTPCookiePropertyKey("Created")

    /// Creates a cookie from Foundation's: a `domain` starting with a dot is a domain cookie
    /// (sent to subdomains too), any other is host-only.
    public init(_ cookie: HTTPCookie) {
        let created = (cookie.properties?[Self.createdKey] as? Double).map { Date(timeIntervalSinceReferenceDate: $0) }
        self.init(
            name: cookie.name, value: cookie.value, domain: cookie.domain, isHostOnly: !cookie.domain.hasPrefix("."),
            path: cookie.path, isSecure: cookie.isSecure, isHTTPOnly: cookie.isHTTPOnly, expiresAt: cookie.expiresDate,
            createdAt: created ?? Date())
    }

    /// The cookie as Foundation's `HTTPCookie` (a domain cookie's domain with a leading dot), or
    /// `nil` when Foundation refuses it.
    public var httpCookie: HTTPCookie? {
        var properties: [HTTPCookiePropertyKey: Any] = [
            .name: name, .value: value, .path: path, .domain: isHostOnly ? domain : "." + domain,
        ]
        if isSecure { properties[.secure] = "TRUE" }
        if isHTTPOnly { properties[Self.httpOnlyKey] = "TRUE" }
        if let expiresAt { properties[.expires] = expiresAt }
        return HTTPCookie(properties: properties)
    }
}
