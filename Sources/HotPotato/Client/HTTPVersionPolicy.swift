/// Which versions of HTTP a session may speak: ``Session/Configuration/httpVersionPolicy``.
///
/// ```swift
/// var configuration = Session.Configuration()
/// configuration.httpVersionPolicy = .http1_1Only  // a server whose HTTP/2 misbehaves
/// ```
///
/// **The curl engine** follows it exactly:
/// - ``automatic`` (the default): HTTP/2 over TLS when the loaded libcurl was built with it
///   and the server offers `h2` in ALPN, HTTP/1.1 otherwise. `https` requests without a proxy
///   share one multiplexed connection per origin: concurrent ones wait for the first connection
///   to learn whether it multiplexes rather than open their own. Plain `http` stays HTTP/1.1
///   (never `h2c`).
/// - ``http1_1Only``: HTTP/1.1 everywhere, one request per connection at a time, kept alive.
///
/// **The URLSession engine** negotiates as its platform does, whatever this says, and cannot
/// report the version it used (``ResponseHead/httpVersion`` is `nil`): on Apple platforms
/// URLSession negotiates HTTP/2 (and HTTP/3) itself; on Linux, FoundationNetworking leaves its
/// libcurl at libcurl's default, which offers `h2` over TLS when libcurl was built with HTTP/2
/// support (Debian's is) and HTTP/1.1 for plain `http`.
public struct HTTPVersionPolicy: Sendable, Hashable, CustomStringConvertible {
    private enum Kind: Hashable {
        case automatic
        case http1_1Only
    }

    private let kind: Kind

    /// HTTP/2 over TLS where both ends support it, multiplexing concurrent requests to one
    /// origin over one connection; HTTP/1.1 otherwise. The default.
    public static let automatic = HTTPVersionPolicy(kind: .automatic)
    /// HTTP/1.1 only, over TLS as over plain connections.
    public static let http1_1Only = HTTPVersionPolicy(kind: .http1_1Only)

    /// Whether HTTP/2 may be negotiated over TLS.
    public var allowsHTTP2: Bool { kind == .automatic }

    /// `automatic` or `http1_1Only`.
    public var description: String {
        switch kind {
        case .automatic: return "automatic"
        case .http1_1Only: return "http1_1Only"
        }
    }
}
