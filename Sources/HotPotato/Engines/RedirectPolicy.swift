import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one rule both engines follow for redirects: which responses are followed, where to, with
/// which method, body and headers.
///
/// Neither engine lets its library follow a redirect. Each hands the head of every final
/// (non-1xx) response to ``nextRequest(after:response:redirectsFollowed:replayableBody:)`` and either delivers
/// that response to the handler or sends the request it returns: libcurl on the same easy handle
/// (so a kept-alive connection is reused), URLSession as a new task on the same session.
///
/// The rule itself — which statuses are followed, where to, with which method, body and
/// headers, and which credentials are dropped — is stated once, for users, at
/// ``Session/Configuration/redirects``; this type is that rule in code. The limit is
/// ``maximumRedirects``; a one-shot body that a followed redirect would keep fails the call with
/// ``HotPotatoError/Code/bodyNotReplayable``.
struct RedirectPolicy: Sendable {
    /// The statuses that are followed (with a `Location`).
    static let followedStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// The request headers that never follow a redirect to another origin (lowercased).
    static let credentialHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie"]

    /// The request headers that describe a body, dropped with it (lowercased).
    static let bodyHeaders: Set<String> = ["content-type", "content-length", "transfer-encoding"]

    /// The most redirects a request follows (``RedirectBehavior/maximumRedirects``); 0 or less
    /// follows none.
    let maximumRedirects: Int
    /// The closure of a ``RedirectBehavior/custom(maximumRedirects:_:)`` behaviour.
    private let decide: (@Sendable (RedirectHop) -> RedirectHop.Decision)?
    /// Told of each redirect that is followed (an event monitor's view).
    private let observe: (@Sendable (ResponseHead, URLRequest) -> Void)?
    /// The transfer's cookies, when the session keeps any: set per transfer (see
    /// ``Request/send(_:through:redirects:call:)``).
    var cookies: CookieExchange?
    /// The names (lowercased) of the header fields the call goes without where it sets none of
    /// its own (``Request/withoutHeader(_:)``): each engine leaves out its default of that name,
    /// and without `cookie` the store's cookies are not attached (they are still stored). Set
    /// per transfer, with ``cookies``.
    var omittedHeaders: Set<String> = []

    init(
        _ behavior: RedirectBehavior, observe: (@Sendable (ResponseHead, URLRequest) -> Void)? = nil
    ) {
        maximumRedirects = behavior.maximumRedirects
        decide = behavior.decide
        self.observe = observe
    }

    /// The request to send first, in place of `request`: with the store's cookies for its URL.
    /// Each engine calls it once, as it starts a transfer.
    func firstRequest(_ request: URLRequest) -> URLRequest {
        guard let cookies, !omittedHeaders.contains("cookie") else { return request }
        var request = request
        cookies.attach(to: &request)
        return request
    }

    /// The request to send next after `response`, or `nil` when `response` is the final one and
    /// goes to the handler.
    ///
    /// - Parameters:
    ///   - request: The request `response` answers (after any earlier redirects).
    ///   - response: The head of a final (non-1xx) response.
    ///   - redirectsFollowed: How many redirects this call has followed so far.
    ///   - replayableBody: Whether the request's body can be sent again; `false` for a one-shot body.
    /// - Returns: The next request, and whether it sends the request body again (the same method
    ///   with the same bytes: `request.httpBody`, or the body file from its first byte). When
    ///   `keepsBody` is `false` the next request has no body at all.
    /// - Throws: ``HotPotatoError/Code/tooManyRedirects`` past the limit;
    ///   ``HotPotatoError/Code/invalidRequest`` for a `Location` that is not an `http` or `https`
    ///   URL; ``HotPotatoError/Code/bodyNotReplayable`` for a redirect to follow that keeps a body
    ///   that is not replayable. All carry `response` as their `head`.
    func nextRequest(
        after request: URLRequest, response: ResponseHead, redirectsFollowed: Int, replayableBody: Bool = true
    ) throws(HotPotatoError) -> (request: URLRequest, keepsBody: Bool)? {
        // The rule judges the caller's own headers: the store's cookies are the store's affair.
        let sent = cookies?.callerRequest(request) ?? request
        let next: (request: URLRequest, keepsBody: Bool)?
        do throws(HotPotatoError) {
            next = try followed(after: sent, response: response, redirectsFollowed: redirectsFollowed)
        } catch {
            cookies?.receive(response, fallbackURL: request.url)
            throw error
        }
        // A final response's cookies are stored by the transfer that receives its head.
        guard var next else { return nil }
        cookies?.receive(response, fallbackURL: request.url)
        if next.keepsBody, !replayableBody {
            throw .bodyNotReplayable(
                "The server redirected (\(response.status)) to \(next.request.url?.absoluteString ?? "another URL") and asks for "
                    + "the request body again, but it is a one-shot stream that was already sent; the redirect was not followed.",
                head: response)
        }
        if !omittedHeaders.contains("cookie") { cookies?.attach(to: &next.request) }
        // Observed as it goes out, with the store's cookies: what `-v` shows is what is sent.
        observe?(response, next.request)
        return next
    }

    /// The request to send next and whether it keeps the body, as ``nextRequest(after:response:redirectsFollowed:replayableBody:)``
    /// says, whatever the body.
    private func followed(
        after request: URLRequest, response: ResponseHead, redirectsFollowed: Int
    ) throws(HotPotatoError) -> (request: URLRequest, keepsBody: Bool)? {
        guard maximumRedirects > 0, Self.followedStatuses.contains(response.status),
              let location = response.headers["Location"]?.trimmingCharacters(in: .whitespaces)
        else { return nil }
        guard redirectsFollowed < maximumRedirects else {
            throw HotPotatoError.tooManyRedirects(limit: maximumRedirects, head: response)
        }
        guard let current = request.url, let target = Self.resolve(location, against: current) else {
            throw HotPotatoError(
                .invalidRequest,
                reason: "The server redirected (\(response.status)) to \"\(location)\", which is not an http or https URL; "
                    + "the redirect was not followed.",
                head: response)
        }

        var next = request
        next.url = target
        let method = (request.httpMethod ?? "GET").uppercased()
        let keepsBody: Bool
        switch response.status {
        case 303:
            next.httpMethod = method == "HEAD" ? "HEAD" : "GET"
            keepsBody = false
        case 301 where method == "POST", 302 where method == "POST":
            next.httpMethod = "GET"
            keepsBody = false
        default:
            keepsBody = true
        }
        if !keepsBody {
            next.httpBody = nil
            next.httpBodyStream = nil
            Self.removeHeaders(Self.bodyHeaders, from: &next)
        }
        if !Self.sameOrigin(current, target) {
            Self.removeHeaders(Self.credentialHeaders, from: &next)
        }
        guard let decide else { return (next, keepsBody) }
        switch decide(RedirectHop(response: response, request: next, redirectsFollowed: redirectsFollowed)) {
        case .follow:
            return (next, keepsBody)
        case .doNotFollow:
            return nil
        case .fail(let reason):
            throw HotPotatoError(.invalidRequest, reason: reason, head: response)
        case .rewrite(var rewritten):
            guard let url = rewritten.url, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                  url.host?.isEmpty == false
            else {
                throw HotPotatoError(
                    .invalidRequest,
                    reason: "The redirect was rewritten to \"\(rewritten.url?.absoluteString ?? "no URL")\", which is not an "
                        + "http or https URL.",
                    head: response)
            }
            if !Self.sameOrigin(current, url) {
                Self.removeHeaders(Self.credentialHeaders, from: &rewritten)
            }
            // The body goes again only with the method it was meant for.
            let sameMethod = (rewritten.httpMethod ?? "GET").uppercased() == (next.httpMethod ?? "GET").uppercased()
            return (rewritten, keepsBody && sameMethod)
        }
    }

    /// `location` resolved against `base`, when it is an absolute `http` or `https` URL with a
    /// host; its scheme lowercased (`HTTP://…` is the same URL, and FoundationNetworking calls
    /// it unsupported).
    static func resolve(_ location: String, against base: URL) -> URL? {
        guard !location.isEmpty, let url = URL(string: location, relativeTo: base)?.absoluteURL,
              let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty
        else { return nil }
        guard url.scheme != scheme, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        components.scheme = scheme
        return components.url ?? url
    }

    /// Whether two URLs have the same origin: scheme and host compared case-insensitively, and
    /// the same port once the scheme's default (80 or 443) stands in for a missing one.
    static func sameOrigin(_ first: URL, _ second: URL) -> Bool {
        func origin(_ url: URL) -> (scheme: String, host: String, port: Int?) {
            let scheme = url.scheme?.lowercased() ?? ""
            let defaultPort: Int? = scheme == "http" ? 80 : scheme == "https" ? 443 : nil
            return (scheme, url.host?.lowercased() ?? "", url.port ?? defaultPort)
        }
        let (a, b) = (origin(first), origin(second))
        return a.scheme == b.scheme && a.host == b.host && a.port == b.port
    }

    /// Removes every header whose lowercased name is in `names`.
    private static func removeHeaders(_ names: Set<String>, from request: inout URLRequest) {
        guard let fields = request.allHTTPHeaderFields,
              fields.keys.contains(where: { names.contains($0.lowercased()) })
        else { return }
        request.allHTTPHeaderFields = fields.filter { !names.contains($0.key.lowercased()) }
    }
}
