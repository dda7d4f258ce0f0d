import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A Foundation `HTTPCookieStorage` behind HotPotato's cookie rules
/// (``CookieStore/httpCookieStorage(_:limits:)``): what a response sets is judged as a
/// ``CookieJar`` judges it, then kept in the storage; what a request carries is every cookie of
/// the storage that HotPotato's matching picks, whoever put it there.
///
/// `HTTPCookieStorage` is documented as thread-safe; HotPotato adds a lock of its own so that a
/// response's cookies are replaced as a whole.
final class HTTPCookieStorageAdapter: CookieStoring, @unchecked Sendable {
    /// Foundation's storage cannot tell cheaply: every request looks.
    var isCertainlyEmpty: Bool { false }

    let storage: HTTPCookieStorage
    private let limits: CookieJar.Limits
    private let lock = NSLock()

    init(_ storage: HTTPCookieStorage, limits: CookieJar.Limits) {
        self.storage = storage
        self.limits = limits
    }

    func cookies(for target: CookieTarget, at now: Date) -> [Cookie] {
        lock.lock()
        let all = storage.cookies ?? []
        lock.unlock()
        var found: [(cookie: Cookie, order: Int)] = []
        for stored in all {
            let cookie = Cookie(stored)
            if cookie.matches(target, at: now) { found.append((cookie, found.count)) }
        }
        return Cookie.inSendingOrder(found)
    }

    /// Keeps at most ``CookieJar/Limits/maximumCookiesPerDomain`` cookies of one response (its
    /// last ones): how many the storage holds in all is the storage's own affair.
    func store(_ values: [Substring], from target: CookieTarget) {
        guard !values.isEmpty else { return }
        let now = Date()
        var decisions: [CookieDecision] = []
        for value in values.reversed() where decisions.count < limits.maximumCookiesPerDomain {
            guard let decision = SetCookie(value)?.decision(from: target, at: now, limits: limits) else { continue }
            if case .reject = decision { continue }
            decisions.append(decision)
        }
        guard !decisions.isEmpty else { return }
        lock.lock()
        defer { lock.unlock() }
        // One pass over the storage: its cookies by HotPotato's key (a domain with or without
        // its leading dot is the same domain).
        var existing: [Cookie.Key: [HTTPCookie]] = [:]
        for stored in storage.cookies ?? [] { existing[Cookie(stored).key, default: []].append(stored) }
        for decision in decisions.reversed() {
            switch decision {
            case .store(let cookie):
                let key = cookie.key
                if !target.isSecure, existing[key]?.contains(where: \.isSecure) == true { continue }
                for old in existing[key] ?? [] { storage.deleteCookie(old) }
                guard let made = cookie.httpCookie else { continue }
                storage.setCookie(made)
                existing[key] = [made]
            case .delete(let key, let secure):
                guard secure || existing[key]?.contains(where: \.isSecure) != true else { continue }
                for old in existing[key] ?? [] { storage.deleteCookie(old) }
                existing[key] = nil
            case .reject:
                break
            }
        }
    }
}
