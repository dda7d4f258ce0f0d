import Foundation

/// Where a session's cookies live, as its requests use it: a ``CookieJar``, or a Foundation
/// `HTTPCookieStorage` behind ``HTTPCookieStorageAdapter``. Both apply the same rules.
protocol CookieStoring: AnyObject, Sendable {
    /// The cookies a request to `target` carries at `now`, in the order they are sent.
    func cookies(for target: CookieTarget, at now: Date) -> [Cookie]
    /// Stores what the `Set-Cookie` values of a response from `target` set.
    func store(_ values: [Substring], from target: CookieTarget)
    /// Whether the store certainly holds no cookie, so that a request needs no look-up (a cheap
    /// answer; `false` when it cannot tell cheaply).
    var isCertainlyEmpty: Bool { get }
}
