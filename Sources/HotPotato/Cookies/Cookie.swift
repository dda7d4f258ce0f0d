import Foundation

/// One HTTP cookie as a ``CookieJar`` keeps it: what a server's `Set-Cookie` said, resolved
/// against the URL that set it (RFC 6265, section 5.3).
///
/// A jar makes cookies from responses itself; make one yourself to hand a jar a cookie the
/// server never set (a session token read from elsewhere):
///
/// ```swift
/// jar.add(Cookie(name: "session", value: token, domain: "api.example.com"))
/// ```
///
/// Two cookies are the same cookie — one replaces the other in a jar — when their ``name``,
/// ``domain`` and ``path`` are equal (``key``).
public struct Cookie: Sendable, Hashable {
    /// The cookie's name, as the server wrote it (case-sensitive).
    public var name: String
    /// The cookie's value, as the server wrote it (quotes included, if any).
    public var value: String
    /// The host the cookie belongs to, lowercased, without a leading dot: the host that set it
    /// for a host-only cookie, else the `Domain` attribute's value.
    public var domain: String
    /// Whether the cookie goes only to ``domain`` itself (`true`: it had no `Domain` attribute,
    /// or the host is an IP address), or to its subdomains too (`false`).
    public var isHostOnly: Bool
    /// The path the cookie is sent under: its `Path` attribute, or the default path of the URL
    /// that set it (the URL's directory).
    public var path: String
    /// Whether the cookie is sent only over `https` (`Secure`).
    public var isSecure: Bool
    /// Whether the server marked the cookie `HttpOnly`. A browser keeps such cookies from
    /// scripts; HotPotato sends them like any other and shows the flag to you.
    public var isHTTPOnly: Bool
    /// When the cookie expires, or `nil` for a session cookie, kept as long as its jar.
    /// `Max-Age` wins over `Expires`; either is capped at 400 days from when it was set, as
    /// RFC 6265bis asks.
    public var expiresAt: Date?
    /// The `SameSite` attribute as written (`Strict`, `Lax`, `None`), or `nil`. Kept, not
    /// enforced: HotPotato makes no cross-site requests on a page's behalf.
    public var sameSite: String?
    /// When the cookie was first set. Replacing a cookie keeps the first one's date; cookies
    /// whose paths are equally long are sent oldest first.
    public var createdAt: Date

    /// Creates a cookie.
    ///
    /// - Parameters:
    ///   - name: The name; the jar ignores a cookie whose name is empty.
    ///   - value: The value, sent as it is.
    ///   - domain: The host (`api.example.com`), lowercased; a leading dot is dropped.
    ///   - isHostOnly: `true` (the default) sends it to `domain` alone; `false` to its subdomains too.
    ///   - path: The path it is sent under; `/` (the default) for every path.
    ///   - isSecure: Send it only over `https`.
    ///   - isHTTPOnly: The `HttpOnly` flag, kept and shown.
    ///   - expiresAt: When it expires; `nil` for a session cookie.
    ///   - sameSite: The `SameSite` attribute, kept.
    ///   - createdAt: When it was set; now by default.
    public init(
        name: String, value: String, domain: String, isHostOnly: Bool = true, path: String = "/", isSecure: Bool = false,
        isHTTPOnly: Bool = false, expiresAt: Date? = nil, sameSite: String? = nil, createdAt: Date = Date()
    ) {
        self.name = name
        self.value = value
        var domain = domain.lowercased()
        while domain.hasPrefix(".") { domain.removeFirst() }
        self.domain = domain
        self.isHostOnly = isHostOnly
        self.path = path.hasPrefix("/") ? path : "/"
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.expiresAt = expiresAt
        self.sameSite = sameSite
        self.createdAt = createdAt
    }

    /// Whether the cookie is a session cookie (no expiry date).
    public var isSessionCookie: Bool { expiresAt == nil }

    /// Whether the cookie has expired at `date` (now by default). A session cookie never does.
    public func isExpired(at date: Date = Date()) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt <= date
    }

    /// Whether a request to `url` carries this cookie (at `date`, now by default): `url`'s host
    /// is the cookie's ``domain`` (or, unless host-only, a subdomain of it), its path is under
    /// ``path``, its scheme is `https` if the cookie is ``isSecure``, and the cookie has not
    /// expired.
    public func isSent(to url: URL, at date: Date = Date()) -> Bool {
        guard let target = CookieTarget(url) else { return false }
        return matches(target, at: date)
    }

    /// `cookies` (each with the order it was found in) in the order a `Cookie` header lists
    /// them (RFC 6265 §5.4): longer paths first, then earlier creation, then the order found.
    /// The one statement of that order, for every store.
    static func inSendingOrder(_ cookies: [(cookie: Cookie, order: Int)]) -> [Cookie] {
        cookies.sorted { a, b in
            let (left, right) = (a.cookie.path.utf8.count, b.cookie.path.utf8.count)
            if left != right { return left > right }
            if a.cookie.createdAt != b.cookie.createdAt { return a.cookie.createdAt < b.cookie.createdAt }
            return a.order < b.order
        }.map(\.cookie)
    }

    /// ``isSent(to:at:)`` for a URL already taken apart.
    func matches(_ target: CookieTarget, at date: Date) -> Bool {
        if isSecure && !target.isSecure { return false }
        if isExpired(at: date) { return false }
        if isHostOnly ? target.host != domain : !CookieRules.domainMatches(target.host, domain) { return false }
        return CookieRules.pathMatches(target.path, path)
    }

    /// `name=value`, as a `Cookie` header carries it; the value alone for a nameless cookie
    /// (RFC 6265bis 5.8.3).
    var pair: String { name.isEmpty ? value : name + "=" + value }
}
