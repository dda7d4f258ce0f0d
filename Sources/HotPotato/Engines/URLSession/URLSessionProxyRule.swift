import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the URLSession engine does with ``Session/Configuration/proxy``: it sends a request only
/// when the `URLSession` underneath would use the proxy the configuration picks for its URL (or
/// none when it picks none), and fails it with ``HotPotatoError/Code/invalidRequest`` otherwise,
/// rather than let it go another way than the one configured. Checked for each redirect too.
///
/// - Linux: FoundationNetworking has no proxy support of its own. It ignores
///   `connectionProxyDictionary` (its `_EasyHandle` never sets libcurl's proxy options; a TODO in
///   swift-corelibs-foundation says so), and the libcurl beneath it therefore reads `http_proxy`,
///   `https_proxy`, `all_proxy` and `no_proxy` from the process environment at each connection,
///   credentials in them included (sent to the proxy only, in the `CONNECT` for a tunnel). That
///   is the one thing it can do: ``ProxyConfiguration/environment(_:)`` of the process's own
///   environment works; an explicit proxy, or ``ProxyConfiguration/none`` set while the
///   environment names a proxy for that URL, fails. A configuration whose proxy was never set
///   goes the environment's way, unchecked. No `Proxy-Authorization` header is ever added here.
/// - Apple platforms: the session's `connectionProxyDictionary` is set from the configuration's
///   two proxies (with ``ProxyConfiguration/none``, to none, unless the caller's
///   `URLSessionConfiguration` has a dictionary of its own, which is kept). One session cannot
///   reach some hosts directly and the rest through a proxy, and URLSession answers a proxy's
///   credentials only through an authentication challenge: a URL that ``ProxyConfiguration/noProxy``
///   exempts, or a proxy with credentials, fails.
struct URLSessionProxyRule: Sendable {
    let configured: ProxyConfiguration
    #if canImport(FoundationNetworking)
    /// The proxy variables of the environment FoundationNetworking's libcurl reads: the
    /// process's, read at each call (a test gives others).
    let environment: @Sendable () -> [String: String]
    /// Whether the configuration's proxy was set at all. While it was not, requests go the way
    /// the environment says, as FoundationNetworking always sent them: failing them would break
    /// every program that never asked for a proxy in an environment that names one.
    let enforced: Bool

    init(
        configured: ProxyConfiguration, enforced: Bool = true,
        environment: @escaping @Sendable () -> [String: String] = Self.processProxyVariables
    ) {
        self.configured = configured
        self.enforced = enforced
        self.environment = environment
    }

    /// Whether URLSession sends a request to `url` through a `CONNECT` tunnel: an `https` URL
    /// with a proxy in the environment. FoundationNetworking then reports the proxy's answer to
    /// the `CONNECT` as a response of its own, before the real one (see
    /// ``URLSessionTransfer/holdsBack(_:)``).
    func tunnels(_ url: URL?) -> Bool {
        guard let url, url.scheme?.lowercased() == "https" else { return false }
        return (try? libcurlConfiguration().selectedProxy(for: url)) != nil
    }

    /// The port of the proxy FoundationNetworking's libcurl connects to for `url` (1080, libcurl's
    /// default, when the proxy names none), or `nil` when it connects directly.
    func proxyPort(for url: URL?) -> Int? {
        guard let url, let proxy = (try? libcurlConfiguration().selectedProxy(for: url)) ?? nil else { return nil }
        return URLComponents(string: proxy.address)?.port ?? 1080
    }

    /// The environment's proxies as FoundationNetworking's libcurl applies them: its `no_proxy`
    /// knows no `host:port` entries (they never match), and `*` only as the whole list.
    func libcurlConfiguration() -> ProxyConfiguration {
        var configuration = ProxyConfiguration.environment(environment())
        if configuration.noProxy != ["*"] {
            configuration.noProxy.removeAll { $0 == "*" || NoProxyEntry($0)?.port != nil }
        }
        return configuration
    }
    #else
    /// Whether URLSession reports a `CONNECT` answer as a response: not on Apple platforms.
    func tunnels(_ url: URL?) -> Bool { false }

    /// The proxy's port: unknown on Apple platforms, where no descriptor is marked.
    func proxyPort(for url: URL?) -> Int? { nil }
    #endif

    /// Throws ``HotPotatoError/Code/invalidRequest`` when a request to `url` would not go the
    /// way the configuration says.
    func check(_ url: URL?) throws(HotPotatoError) {
        guard let url else { return }
        let wanted = try configured.selectedProxy(for: url)
        #if canImport(FoundationNetworking)
        guard enforced else { return }
        let actual = try? libcurlConfiguration().selectedProxy(for: url)
        guard wanted != actual else { return }
        let target = Redaction.redactingCredentials(inURL: url.absoluteString)
        if let wanted {
            let environment = actual.map { "it would use \($0.text(revealingSecrets: false))" } ?? "it names none for this URL"
            throw HotPotatoError(.invalidRequest, reason: """
                The URLSession engine on Linux cannot send \(target) through the proxy \
                \(wanted.text(revealingSecrets: false)): FoundationNetworking ignores connectionProxyDictionary, \
                and its libcurl takes a proxy only from the process environment (\(environment)). Use the curl \
                engine (potato: --engine curl), or set the proxy in the environment (http_proxy, https_proxy) and \
                use ProxyConfiguration.environment() (potato: leave out -x).
                """)
        }
        throw HotPotatoError(.invalidRequest, reason: """
            The URLSession engine on Linux cannot send \(target) directly: FoundationNetworking's \
            libcurl would send it through the proxy \(actual?.text(revealingSecrets: false) ?? "") that the process \
            environment names (http_proxy, https_proxy, all_proxy), and cannot be told otherwise. Use the curl \
            engine, exempt the host in no_proxy, or accept the environment's proxy with \
            ProxyConfiguration.environment().
            """)
        #else
        if let wanted, wanted.user != nil || wanted.password != nil {
            throw HotPotatoError(.invalidRequest, reason: """
                The URLSession engine cannot send proxy credentials (\(wanted.text(revealingSecrets: false))): \
                use the curl engine, or a proxy that needs none.
                """)
        }
        if let wanted, wanted.address.hasPrefix("https:") {
            throw HotPotatoError(.invalidRequest, reason: """
                The URLSession engine cannot reach a proxy over TLS (\(wanted.text(revealingSecrets: false))): \
                use the curl engine.
                """)
        }
        guard !usesOwnDictionary else { return }
        let sessionProxy: URL?
        switch url.scheme?.lowercased() {
        case "http": sessionProxy = configured.httpProxy
        case "https": sessionProxy = configured.httpsProxy
        default: sessionProxy = nil
        }
        if wanted == nil, let sessionProxy {
            throw HotPotatoError(.invalidRequest, reason: """
                The URLSession engine cannot reach \(url.host ?? url.absoluteString) directly (no_proxy) while its \
                session goes through the proxy \(Redaction.redactingCredentials(inURL: sessionProxy.absoluteString)): use \
                the curl engine for per-host exemptions.
                """)
        }
        #endif
    }

    /// `request` as its task sends it, with the header fields for the proxy alone
    /// (``ProxyConfiguration/headers`` and the request's `Proxy-Authorization`): its
    /// `Proxy-Authorization` never stays in it as such; through a proxy, an `http` request
    /// carries the fields to the proxy, which is where it goes; without a proxy none is sent.
    ///
    /// Throws ``HotPotatoError/Code/invalidRequest`` for an `https` URL through a proxy with such
    /// fields: URLSession's `CONNECT` request takes no field of ours, and in the request they
    /// would reach the origin through the tunnel.
    func routingProxyHeaders(_ request: URLRequest) throws(HotPotatoError) -> URLRequest {
        let fields = configured.proxyHeaderFields(for: request)
        guard !fields.isEmpty, let url = request.url else { return request }
        var routed = request
        routed.setValue(nil, forHTTPHeaderField: ProxyConfiguration.proxyAuthorization)
        #if canImport(FoundationNetworking)
        let proxy = try? libcurlConfiguration().selectedProxy(for: url)
        #else
        let proxy = try? configured.selectedProxy(for: url)
        #endif
        guard proxy != nil else { return routed }
        guard url.scheme?.lowercased() == "https" else {
            for field in fields { routed.setValue(field.value, forHTTPHeaderField: field.name) }
            return routed
        }
        let names = Set(fields.map(\.name)).sorted().joined(separator: ", ")
        throw HotPotatoError(.invalidRequest, reason: """
            The URLSession engine cannot send header fields to a proxy alone (\(names)) for \
            \(Redaction.redacting(url)): URLSession's CONNECT request takes none of ours, and \
            in the request they would reach the origin through the tunnel. Use the curl engine, or credentials in \
            the proxy URL.
            """)
    }

    /// The proxy settings FoundationNetworking's libcurl may quote in a message, credentials and
    /// all: the environment's proxy variables.
    func proxySettings() -> [String] {
        #if canImport(FoundationNetworking)
        return environment().filter { !$0.key.lowercased().hasPrefix("no_") }.map(\.value)
        #else
        return []
        #endif
    }

    #if canImport(FoundationNetworking)
    /// The proxy variables of the process environment, read now, as libcurl reads them at each
    /// connection (without copying the whole environment).
    static func processProxyVariables() -> [String: String] {
        var variables: [String: String] = [:]
        for name in ProxyConfiguration.environmentVariables {
            if let value = getenv(name) { variables[name] = String(cString: value) }
        }
        return variables
    }
    #else
    /// Whether the caller's `URLSessionConfiguration` came with a proxy dictionary of its own,
    /// kept because the configuration's proxy is ``ProxyConfiguration/none``.
    let usesOwnDictionary: Bool

    /// Sets `urlConfiguration`'s proxy dictionary from the configured proxies.
    init(configured: ProxyConfiguration, applyingTo urlConfiguration: URLSessionConfiguration) {
        self.configured = configured
        usesOwnDictionary = configured == .none && urlConfiguration.connectionProxyDictionary != nil
        guard !usesOwnDictionary else { return }
        var dictionary: [AnyHashable: Any] = ["HTTPEnable": 0, "HTTPSEnable": 0]
        if let proxy = configured.httpProxy, let host = proxy.host {
            dictionary["HTTPEnable"] = 1
            dictionary["HTTPProxy"] = host
            dictionary["HTTPPort"] = proxy.port ?? Self.defaultPort(of: proxy)
        }
        if let proxy = configured.httpsProxy, let host = proxy.host {
            dictionary["HTTPSEnable"] = 1
            dictionary["HTTPSProxy"] = host
            dictionary["HTTPSPort"] = proxy.port ?? Self.defaultPort(of: proxy)
        }
        urlConfiguration.connectionProxyDictionary = dictionary
    }

    /// curl's default port for a proxy URL without one.
    private static func defaultPort(of proxy: URL) -> Int {
        proxy.scheme?.lowercased() == "https" ? 443 : 1080
    }
    #endif
}
