import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The cookies of one transfer (one attempt of a call, with its redirects): stores what each
/// response sets and gives each request the store's cookies, while keeping the caller's own
/// `Cookie` header apart, so that the redirect rule for it (dropped on a redirect to another
/// origin) never applies to the store's cookies, nor theirs to it.
///
/// The engines call it through ``RedirectPolicy``: ``RedirectPolicy/firstRequest(_:)`` when they
/// start, ``RedirectPolicy/nextRequest(after:response:redirectsFollowed:replayableBody:)`` at each
/// redirect; the final response's cookies are stored by ``Transfer`` as its head arrives, before
/// anyone sees the response.
///
/// Each request's ``attach(to:)`` happens before the engine sends it, and the engine's
/// ``callerRequest(_:)`` for its redirect after: one thread at a time, in order, handed over by
/// the engine's own synchronisation — so the exchange keeps its state without a lock (one less
/// allocation for every request).
final class CookieExchange: @unchecked Sendable {
    private let store: any CookieStoring
    /// Whether the store may have added cookies to the request in flight; when it did not, the
    /// request's `Cookie` header is the caller's own.
    private var storeLooked = false
    /// The caller's `Cookie` header on the request in flight, when ``storeLooked``.
    private var callerCookie: String?

    init(store: any CookieStoring) {
        self.store = store
    }

    /// Adds the store's cookies for `request`'s URL to its `Cookie` header, after the caller's
    /// own (whose names the store's cookies then leave out); remembers the caller's header.
    func attach(to request: inout URLRequest) {
        storeLooked = false
        // The common case, an empty jar, costs no look-up (and no allocation).
        guard !store.isCertainlyEmpty, let url = request.url, let target = CookieTarget(url) else { return }
        let caller = request.value(forHTTPHeaderField: "Cookie")
        storeLooked = true
        callerCookie = caller
        var cookies = store.cookies(for: target, at: Date())
        guard !cookies.isEmpty else { return }
        if let caller {
            let names = Set(caller.split(separator: ";").map { pair in
                ASCII.trimmingWhitespace(pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0])
            })
            cookies.removeAll { names.contains(Substring($0.name)) }
        }
        let pairs = (caller.map { [$0] } ?? []) + cookies.map(\.pair)
        guard !pairs.isEmpty else { return }
        request.setValue(pairs.joined(separator: "; "), forHTTPHeaderField: "Cookie")
    }

    /// `request` (sent with ``attach(to:)``) with the caller's `Cookie` header alone, as the
    /// redirect rule judges it.
    func callerRequest(_ request: URLRequest) -> URLRequest {
        guard storeLooked else { return request }
        let caller = callerCookie
        var request = request
        if request.value(forHTTPHeaderField: "Cookie") != caller {
            request.setValue(caller, forHTTPHeaderField: "Cookie")
        }
        return request
    }

    /// Stores the cookies `head` sets; `fallbackURL` stands in when the head does not say which
    /// URL answered.
    func receive(_ head: ResponseHead, fallbackURL: URL? = nil) {
        // Most responses set no cookie: nothing is made for them.
        guard head.headers.fields.contains(where: { HTTPHeaders.namesMatch($0.name, "Set-Cookie") }) else { return }
        guard let url = head.url ?? fallbackURL, let target = CookieTarget(url) else { return }
        let values = SetCookie.values(in: head.headers)
        if !values.isEmpty { store.store(values, from: target) }
    }
}
