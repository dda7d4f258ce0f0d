import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a ``Session`` keeps the cookies servers set, and sends them from
/// (``Session/Configuration/cookieStore``).
///
/// ```swift
/// configuration.cookieStore = .inMemory                    // the default: a new jar per session
/// configuration.cookieStore = .none                        // no cookies kept or sent
/// configuration.cookieStore = .jar(sharedJar)              // one CookieJar for several sessions
/// configuration.cookieStore = .httpCookieStorage(.shared)  // Foundation's storage
/// ```
///
/// Both engines use the store the same way: HotPotato itself stores each response's
/// `Set-Cookie` (every redirect's too) and adds a `Cookie` header to each request it sends —
/// every redirect and every retry — by the rules of ``CookieJar``. A `Cookie` header you set on
/// a request is sent as well, before the store's cookies; a store cookie of the same name as one
/// of yours is left out.
public struct CookieStore: Sendable {
    enum Kind: @unchecked Sendable {
        case none
        case inMemory(CookieJar.Limits)
        case jar(CookieJar)
        /// `HTTPCookieStorage` is thread-safe, though not marked `Sendable` everywhere.
        case storage(HTTPCookieStorage, CookieJar.Limits)
    }

    let kind: Kind

    /// No cookies: nothing servers set is kept, and requests carry only the `Cookie` headers you
    /// give them.
    public static let none = CookieStore(kind: .none)

    /// A new ``CookieJar`` for each ``Session``, kept in memory as long as the session (see
    /// ``Session/cookieJar``): the default, as URLSession's `.ephemeral`.
    public static let inMemory = CookieStore(kind: .inMemory(CookieJar.Limits()))

    /// A new ``CookieJar`` with these limits for each ``Session``.
    public static func inMemory(limits: CookieJar.Limits) -> CookieStore {
        CookieStore(kind: .inMemory(limits))
    }

    /// `jar`, which sessions given the same jar share, and which you can read and change at any
    /// time.
    public static func jar(_ jar: CookieJar) -> CookieStore {
        CookieStore(kind: .jar(jar))
    }

    /// A Foundation `HTTPCookieStorage` you already have (`.shared`, or one shared with a
    /// `URLSession` of your own), judged by HotPotato's rules rather than Foundation's, on
    /// every platform and engine alike.
    ///
    /// What a response sets is kept only if a ``CookieJar`` would keep it; at most
    /// `limits.maximumCookiesPerDomain` cookies of one response are kept (its last ones); and a
    /// request carries every cookie of the storage that a jar's rules would send — including
    /// ones you or another `URLSession` put there. The storage's `cookieAcceptPolicy` is the
    /// storage's own affair.
    public static func httpCookieStorage(_ storage: HTTPCookieStorage, limits: CookieJar.Limits = CookieJar.Limits()) -> CookieStore {
        CookieStore(kind: .storage(storage, limits))
    }

    /// The jar a session with this store uses: a new one for ``inMemory``, the jar of
    /// ``jar(_:)``, `nil` otherwise.
    func makeJar() -> CookieJar? {
        switch kind {
        case .none, .storage: return nil
        case .inMemory(let limits): return CookieJar(limits: limits)
        case .jar(let jar): return jar
        }
    }

    /// What a session's requests store cookies in and send them from, given the session's jar.
    func backend(jar: CookieJar?) -> (any CookieStoring)? {
        switch kind {
        case .none: return nil
        case .inMemory, .jar: return jar
        case .storage(let storage, let limits): return HTTPCookieStorageAdapter(storage, limits: limits)
        }
    }
}
