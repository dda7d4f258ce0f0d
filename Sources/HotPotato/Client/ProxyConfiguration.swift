import Foundation

/// Which HTTP proxy a request goes through, if any: one for `http` URLs, one for `https` URLs,
/// and the hosts reached directly. Set it as ``Session/Configuration/proxy``.
///
/// ```swift
/// var configuration = Session.Configuration()
/// configuration.proxy = ProxyConfiguration(
///     httpProxy: URL(string: "http://user:secret@proxy.example:3128"),
///     httpsProxy: URL(string: "http://user:secret@proxy.example:3128"),
///     noProxy: ["localhost", ".internal.example", "10.0.0.0/8"])
/// // or, as curl does, from http_proxy, https_proxy, all_proxy and no_proxy:
/// configuration.proxy = .environment()
/// ```
///
/// A proxy is a URL `http://[user:password@]host[:port]` (an `https://` proxy is reached over
/// TLS, on the curl engine). Credentials in it are percent-decoded and sent to the proxy only,
/// as `Proxy-Authorization: Basic`; they never reach the origin and are never logged. Without a
/// port, curl's defaults apply: 1080 for `http://`, 443 for `https://`. An `https` URL goes
/// through its proxy in a `CONNECT` tunnel, so the proxy sees the host and port, never the
/// request.
///
/// Header fields for the proxy alone — a `Proxy-Authorization` of another scheme than Basic, a
/// token the proxy wants — go in ``headers``: never to the origin. A `Proxy-Authorization`
/// header of a request is taken as one of them (see ``headers``).
///
/// The default is ``none``: the process environment is read only when you ask for it with
/// ``environment(_:)``. See <doc:UsingAProxy> for what each engine supports.
public struct ProxyConfiguration: Sendable, Hashable {
    /// The proxy for `http` URLs, or `nil` to reach them directly.
    public var httpProxy: URL?
    /// The proxy for `https` URLs (tunnelled with `CONNECT`), or `nil` to reach them directly.
    public var httpsProxy: URL?
    /// Hosts reached without a proxy, one entry each, with curl's `no_proxy` rule:
    ///
    /// - `*` matches every host.
    /// - A host name matches itself and every subdomain, ignoring case: `example.com` (or
    ///   `.example.com`) matches `example.com` and `a.b.example.com`, not `notexample.com`. A
    ///   trailing dot on either side is ignored.
    /// - An IP address matches the same address written in a URL (`127.0.0.1`, `::1`); with a
    ///   prefix length, a whole network (`10.0.0.0/8`, `fd00::/8`). A host name never matches an
    ///   address entry: names are not resolved.
    /// - An entry may end with `:port` (`[::1]:8080` for an IPv6 address): it then matches that
    ///   port only (the URL's, or 80 or 443 by its scheme). curl itself has no such entries.
    ///
    /// Surrounding whitespace is ignored, as are empty entries.
    public var noProxy: [String]
    /// Header fields sent to the proxy only, as curl's `--proxy-header`: in the `CONNECT` request
    /// that opens the tunnel of an `https` URL (never through the tunnel), and with the request
    /// itself for an `http` URL sent to the proxy (a proxy forwards what it does not consume,
    /// as for curl). A request that goes directly sends none of them. Sent on every redirect that
    /// goes through a proxy.
    ///
    /// A request's own `Proxy-Authorization` header is treated as one of these (replacing a field
    /// of the same name here): it goes to the proxy, in the `CONNECT` for an `https` URL, and is
    /// not sent at all when the request goes directly — never to the origin. Like `Authorization`,
    /// it is dropped on a redirect to another origin; the fields here are not.
    ///
    /// The curl engine sends them as described. The URLSession engine sends them with an `http`
    /// request that goes through a proxy; for an `https` URL through a proxy it cannot (it has no
    /// way to add a field to its `CONNECT` request, and with the request they would reach the
    /// origin through the tunnel): such a request fails with ``HotPotatoError/Code/invalidRequest``
    /// before anything is sent.
    public var headers: HTTPHeaders

    /// A configuration with a proxy for each scheme, a list of hosts to reach directly and header
    /// fields for the proxy alone.
    public init(httpProxy: URL? = nil, httpsProxy: URL? = nil, noProxy: [String] = [], headers: HTTPHeaders = [:]) {
        self.httpProxy = httpProxy
        self.httpsProxy = httpsProxy
        self.noProxy = noProxy
        self.headers = headers
    }

    /// A configuration with one proxy for both `http` and `https` URLs, like curl's `--proxy`.
    public init(proxy: URL, noProxy: [String] = [], headers: HTTPHeaders = [:]) {
        self.init(httpProxy: proxy, httpsProxy: proxy, noProxy: noProxy, headers: headers)
    }

    /// Direct connections: no proxy, whatever the environment says. The default.
    public static var none: ProxyConfiguration { ProxyConfiguration() }

    /// The environment variables that name proxies, as curl reads them: `http_proxy` (never
    /// `HTTP_PROXY`, which a CGI request can set from a `Proxy:` header), `https_proxy` or
    /// `HTTPS_PROXY`, and `all_proxy` or `ALL_PROXY` for either scheme. The one list every
    /// reader of the environment uses (this configuration, the curl engine's check, URLSession's).
    static let proxyVariables = (http: ["http_proxy"], https: ["https_proxy", "HTTPS_PROXY"], all: ["all_proxy", "ALL_PROXY"])
    /// The variables that list the hosts reached directly: `no_proxy` or `NO_PROXY`.
    static let noProxyVariables = ["no_proxy", "NO_PROXY"]
    /// Every variable above.
    static var environmentVariables: [String] {
        proxyVariables.http + proxyVariables.https + proxyVariables.all + noProxyVariables
    }

    /// The proxies the environment names, read as curl reads them:
    ///
    /// - `http` URLs: `http_proxy`. The upper-case `HTTP_PROXY` is **ignored**, as curl ignores
    ///   it: a CGI program receives a request's `Proxy:` header as `HTTP_PROXY`, so a client
    ///   sending one could redirect the server's own outgoing requests (the "httpoxy" problem).
    /// - `https` URLs: `https_proxy`, else `HTTPS_PROXY`.
    /// - Either, when its own variable is not set: `all_proxy`, else `ALL_PROXY`.
    /// - Hosts reached directly: `no_proxy`, else `NO_PROXY`, split at commas and whitespace.
    ///
    /// A lower-case variable wins over its upper-case form. A variable set to an empty value (or
    /// to whitespace) counts as not set, as in curl: an empty `https_proxy` lets `HTTPS_PROXY`,
    /// then `all_proxy`, name the proxy. A value without a scheme (`proxy.example:3128`) is taken
    /// as `http://`. A value that is not a URL makes each request that would use it fail with
    /// ``HotPotatoError/Code/invalidRequest``.
    ///
    /// - Parameter environment: The variables to read; by default the process's environment,
    ///   read once, when this is called.
    public static func environment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> ProxyConfiguration {
        /// The first of the variables that is set to something, and its value.
        func first(_ names: [String]) -> (String, String)? {
            for name in names {
                let value = environment[name]?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
                if !value.isEmpty { return (name, value) }
            }
            return nil
        }
        var configuration = ProxyConfiguration()
        let fallback = first(proxyVariables.all)
        if let (variable, value) = first(proxyVariables.http) ?? fallback {
            configuration.httpProxy = configuration.parseProxy(value, scheme: "http", variable: variable)
        }
        if let (variable, value) = first(proxyVariables.https) ?? fallback {
            configuration.httpsProxy = configuration.parseProxy(value, scheme: "https", variable: variable)
        }
        configuration.noProxy = Self.entries(first(noProxyVariables)?.1 ?? "")
        return configuration
    }

    /// The proxy a request for `url` goes through, or `nil` when it goes directly: the proxy
    /// of its scheme (``httpProxy`` or ``httpsProxy``), unless its host matches ``noProxy``.
    /// Picked again for each redirect, since the URL changes.
    public func proxy(for url: URL) -> URL? {
        let proxy: URL?
        switch url.scheme?.lowercased() {
        case "http": proxy = httpProxy
        case "https": proxy = httpsProxy
        default: return nil
        }
        guard let proxy else { return nil }
        return bypasses(url) ? nil : proxy
    }

    /// Splits a list written as curl's `no_proxy` (`"localhost, .example.com 10.0.0.0/8"`) into
    /// its entries.
    public static func entries(_ list: String) -> [String] {
        list.split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init)
    }

    /// For each scheme (`http`, `https`) whose environment variable named no usable proxy: the
    /// variable and its value, credentials redacted, for the error of the requests that would
    /// have used it.
    private(set) var unusableSettings: [String: String] = [:]

    /// Whether no request goes through a proxy: no proxy, and no unusable setting to report.
    var isDirect: Bool { httpProxy == nil && httpsProxy == nil && unusableSettings.isEmpty }

    /// A proxy address as curl reads one: `http://` added when it has no scheme
    /// (`proxy.example:3128`); `nil` when it is not then a URL with a host and a port (if any) in
    /// 1…65535. The one reading of a proxy address, for the environment's and for a command
    /// line's (potato's `--proxy`).
    public static func proxyURL(_ text: String) -> URL? {
        let full = text.contains("://") ? text : "http://" + text
        guard let url = URL(string: full), url.host?.isEmpty == false else { return nil }
        // A port libcurl would refuse as "unsupported proxy syntax" when the request goes out.
        if let port = url.port, !(1...65535).contains(port) { return nil }
        return url
    }

    /// `value` as a proxy URL (see ``proxyURL(_:)``); `nil`, noting it for `scheme`, when it is
    /// not a URL.
    private mutating func parseProxy(_ value: String, scheme: String, variable: String) -> URL? {
        guard let url = Self.proxyURL(value) else {
            unusableSettings[scheme] = "\(variable)=\(Redaction.redactingCredentials(inURL: value))"
            return nil
        }
        return url
    }
}
