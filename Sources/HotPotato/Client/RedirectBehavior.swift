import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Whether and how a request follows redirects: for a whole session
/// (``Session/Configuration/redirects``) or for one request (``Request/redirects(_:)``).
///
/// ```swift
/// // The 3xx is the response: read its Location yourself.
/// let head = try await session.get(url).redirects(.doNotFollow).acceptingAnyStatus()
///     .discardResponseContent().response().head
///
/// // Follow, but never off the API's host.
/// let policy = RedirectBehavior.custom { hop in
///     hop.request.url?.host == "api.example.com" ? .follow : .doNotFollow
/// }
/// ```
///
/// Every behaviour keeps HotPotato's redirect rule (see ``Session/Configuration/redirects``):
/// which statuses are followed, the method and body of the next request, and credentials dropped
/// on the way to another origin. A ``custom(maximumRedirects:_:)`` closure sees the request that
/// rule makes, after the credentials were dropped, and decides.
public struct RedirectBehavior: Sendable {
    /// The most redirects followed before the call fails with
    /// ``HotPotatoError/Code/tooManyRedirects``; 0 follows none.
    public var maximumRedirects: Int
    /// The closure of ``custom(maximumRedirects:_:)``, if any.
    let decide: (@Sendable (RedirectHop) -> RedirectHop.Decision)?

    /// Follows redirects, up to `maximumRedirects` (the default behaviour, with 10).
    public static func follow(maximumRedirects: Int = 10) -> RedirectBehavior {
        RedirectBehavior(maximumRedirects: maximumRedirects, decide: nil)
    }

    /// Follows no redirect: a `3xx` is the response, handled like any other (so a handler that
    /// accepts only `2xx` rejects it, with its head and body in the error).
    public static var doNotFollow: RedirectBehavior {
        RedirectBehavior(maximumRedirects: 0, decide: nil)
    }

    /// Asks `decide` at each redirect HotPotato's rule would follow, up to `maximumRedirects`.
    ///
    /// The closure runs on the engine's thread, before the next request is sent, and the transfer
    /// waits for it: keep it short and do not block. A rewritten request to another origin loses
    /// its credential headers as any redirect does; one whose URL is not `http` or `https` fails
    /// the call with ``HotPotatoError/Code/invalidRequest``.
    public static func custom(
        maximumRedirects: Int = 10, _ decide: @escaping @Sendable (RedirectHop) -> RedirectHop.Decision
    ) -> RedirectBehavior {
        RedirectBehavior(maximumRedirects: maximumRedirects, decide: decide)
    }
}
