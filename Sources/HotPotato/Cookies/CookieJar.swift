import Foundation

/// A thread-safe store of HTTP cookies, kept by RFC 6265's rules, that sessions send and fill.
///
/// Every ``Session`` has one by default (``CookieStore/inMemory``, fresh per session, as
/// URLSession's `.ephemeral`); make one yourself to share cookies between sessions, to look at
/// them, or to save and load them:
///
/// ```swift
/// let jar = CookieJar()
/// var configuration = Session.Configuration()
/// configuration.cookieStore = .jar(jar)
/// let session = Session(configuration: configuration)
/// _ = try await session.post(loginURL).body(form: credentials).asData().content
/// print(jar.cookies.map(\.name))                  // ["session"]
/// let me = try await session.get(meURL).asJSON().content   // sent with the session cookie
/// ```
///
/// What a response sets is kept by the rules browsers follow: a cookie goes back only to its
/// host (or, with `Domain`, to that domain and its subdomains), under its path, over `https` if
/// it is `Secure`, and until it expires (`Max-Age` wins over `Expires`; `Max-Age=0` deletes it).
/// A jar ignores a cookie for another site, for a public suffix (`Domain=com`, `Domain=co.uk`), a
/// `Secure` one set over `http`, and one whose name and value are larger than
/// ``Limits/maximumCookieSize``; it never keeps more than ``Limits`` allows, whatever a server
/// sends. A cookie replaces the one of the same name, domain and path.
///
/// All methods may be called from any thread; each is atomic.
public final class CookieJar: Sendable {
    /// What the jar keeps at most.
    public let limits: Limits
    let state: Locked<CookieJarState>

    /// Creates an empty jar.
    /// - Parameter limits: What it keeps at most; browsers' limits by default.
    public init(limits: Limits = Limits()) {
        self.limits = limits
        state = Locked(CookieJarState())
    }

    /// Every cookie in the jar that has not expired, by domain, then path, then age.
    public var cookies: [Cookie] {
        let now = Date()
        return state.withLock { $0.all(at: now) }.sorted { a, b in
            if a.domain != b.domain { return a.domain < b.domain }
            if a.path != b.path { return a.path < b.path }
            return a.createdAt < b.createdAt
        }
    }

    /// How many cookies the jar holds (expired ones not yet dropped included).
    public var count: Int { state.withLock { $0.count } }

    /// The cookies a request to `url` carries, in the order they are sent: longer paths first,
    /// then older cookies first. Empty for a URL other than `http` or `https`.
    public func cookies(for url: URL) -> [Cookie] {
        guard let target = CookieTarget(url) else { return [] }
        return cookies(for: target, at: Date())
    }

    /// The `Cookie` header a request to `url` carries (`a=1; b=2`), or `nil` when it carries none.
    public func cookieHeader(for url: URL) -> String? {
        let cookies = cookies(for: url)
        return cookies.isEmpty ? nil : cookies.map(\.pair).joined(separator: "; ")
    }

    /// Adds `cookie`, replacing the one with the same name, domain and path (whose creation date
    /// it keeps). An expired cookie removes that one instead. A cookie with an empty name and
    /// value, or an empty domain, or larger than ``Limits/maximumCookieSize``, is ignored; past
    /// the count limits the oldest cookies make room. A nameless cookie (an empty name, a value)
    /// is kept, as RFC 6265bis keeps it, and sent as its value alone.
    /// - Returns: Whether the cookie is in the jar now.
    @discardableResult
    public func add(_ cookie: Cookie) -> Bool {
        guard !cookie.name.isEmpty || !cookie.value.isEmpty, !cookie.domain.isEmpty,
              cookie.name.utf8.count + cookie.value.utf8.count <= limits.maximumCookieSize
        else { return false }
        let now = Date()
        let limits = limits
        return state.withLock { state in
            if cookie.isExpired(at: now) {
                state.remove(cookie.key, secureOrigin: true)
                return false
            }
            return state.insert(cookie, secureOrigin: true, limits: limits, at: now)
        }
    }

    /// Adds each cookie of `cookies` in turn (see ``add(_:)``).
    public func add(contentsOf cookies: some Sequence<Cookie>) {
        for cookie in cookies { add(cookie) }
    }

    /// Stores what the `Set-Cookie` fields of `headers` set, as if they answered a request to
    /// `url`: for headers of a response that did not come through a ``Session``.
    public func storeCookies(from headers: HTTPHeaders, for url: URL) {
        guard let target = CookieTarget(url) else { return }
        store(SetCookie.values(in: headers), from: target)
    }

    /// Removes the cookie with this name, domain and path, and returns it (`nil` if there was none).
    @discardableResult
    public func remove(_ key: Cookie.Key) -> Cookie? {
        state.withLock { $0.remove(key, secureOrigin: true) }
    }

    /// Removes every cookie for which `shouldRemove` returns `true` (called under the jar's lock:
    /// it must not use the jar).
    public func removeAll(where shouldRemove: (Cookie) -> Bool) {
        state.withLock { $0.removeAll(where: shouldRemove) }
    }

    /// Removes every cookie.
    public func removeAll() {
        state.withLock { $0 = CookieJarState() }
    }

    /// Removes the cookies that have expired (the jar also drops them as it meets them).
    public func removeExpired() {
        let now = Date()
        state.withLock { $0.removeAll { $0.isExpired(at: now) } }
    }
}

extension CookieJar: CookieStoring {
    var isCertainlyEmpty: Bool {
        state.withLock { $0.count == 0 }
    }

    func cookies(for target: CookieTarget, at now: Date) -> [Cookie] {
        state.withLock { $0.cookies(for: target, at: now) }
    }

    func store(_ values: [Substring], from target: CookieTarget) {
        guard !values.isEmpty else { return }
        let now = Date()
        let limits = limits
        let decisions = values.compactMap { SetCookie($0)?.decision(from: target, at: now, limits: limits) }
        state.withLock { state in
            for decision in decisions {
                switch decision {
                case .store(let cookie): state.insert(cookie, secureOrigin: target.isSecure, limits: limits, at: now)
                case .delete(let key, let secure): state.remove(key, secureOrigin: secure)
                case .reject: break
                }
            }
        }
    }
}
