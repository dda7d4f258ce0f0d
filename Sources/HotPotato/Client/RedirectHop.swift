import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One redirect a ``RedirectBehavior/custom(maximumRedirects:_:)`` closure decides on.
public struct RedirectHop: Sendable {
    /// What the closure decides.
    public enum Decision: Sendable {
        /// Send ``RedirectHop/request``, as the redirect rule made it.
        case follow
        /// Send this request instead (another URL, other headers). Credential headers are
        /// dropped if it goes to another origin than the response that redirected.
        case rewrite(URLRequest)
        /// Do not follow: the redirect response is the response, and goes to the handler.
        case doNotFollow
        /// Fail the call with ``HotPotatoError/Code/invalidRequest``, this reason, and the
        /// redirect's head.
        case fail(reason: String)
    }

    /// The head of the redirect response (its status, `Location`, and the URL that answered).
    public let response: ResponseHead
    /// The request the redirect rule would send next: the resolved `Location`, the method and
    /// body the status calls for, and no credential headers if it leaves the origin.
    public let request: URLRequest
    /// How many redirects the call has followed before this one.
    public let redirectsFollowed: Int
}
