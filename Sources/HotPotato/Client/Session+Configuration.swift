import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Session {
    /// How a ``Session`` makes its requests.
    ///
    /// ```swift
    /// var configuration = Session.Configuration()
    /// configuration.requestTimeout = 10
    /// configuration.headers = ["User-Agent": "MyApp/1.0"]
    /// let session = Session(configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        /// Seconds a request may wait for the next bytes before failing with
        /// ``HotPotatoError/Code/timedOut``. Default 60. A request can set its own with
        /// `timeout(_:)`. A fraction is kept on both engines, to within a quarter of the limit
        /// (the libcurl engine looks at a limit under a second four times within it; on Linux the
        /// URLSession engine keeps it itself: FoundationNetworking counts whole seconds, and fired
        /// 0.5 s at once).
        public var requestTimeout: TimeInterval = 60
        /// Seconds a whole transfer may take before failing with ``HotPotatoError/Code/timedOut``,
        /// however steadily its bytes arrive (potato's `--max-time`). Default 7 days, URLSession's
        /// own. Kept by both engines (on Linux the URLSession engine keeps it itself, for limits
        /// under a day: FoundationNetworking does not). Each attempt of a retried call, and each
        /// connection of a download over several, has its own.
        public var resourceTimeout: TimeInterval = 7 * 24 * 60 * 60
        /// Headers sent with every request; a request's own headers of the same name win.
        public var headers: HTTPHeaders = [:]
        /// Whether and how requests follow redirects: ``RedirectBehavior/follow(maximumRedirects:)``
        /// with a limit of 10 by default (past it the call fails with
        /// ``HotPotatoError/Code/tooManyRedirects``, its `limit` set); ``RedirectBehavior/doNotFollow``
        /// handles a 3xx like any other response. A request can set its own with
        /// ``Request/redirects(_:)``.
        ///
        /// Both engines follow the same rule, whatever the behaviour decides within it:
        /// - Only `301`, `302`, `303`, `307` and `308` with a `Location` header are followed, to
        ///   `http` or `https` URLs (`Location` is resolved against the URL that answered). Any
        ///   other status — `300`, `304`, `305`, `306`, or a redirect without `Location` — is the
        ///   final response. A `Location` of another scheme, or one that is not a URL, fails the
        ///   call with ``HotPotatoError/Code/invalidRequest``.
        /// - `303` turns the request into a `GET` without a body (a `HEAD` stays a `HEAD`); `301`
        ///   and `302` turn a `POST` into a `GET` without a body and keep other methods; `307` and
        ///   `308` keep the method and send the body again (a body file from its first byte).
        ///   When the body is dropped, so are `Content-Type`, `Content-Length` and
        ///   `Transfer-Encoding`. A one-shot body (an `AsyncSequence`, an `InputStream`) cannot be
        ///   sent again: a followed redirect that would keep it fails the call with
        ///   ``HotPotatoError/Code/bodyNotReplayable``.
        /// - A redirect to another origin — another scheme (including `https` to `http`), host or
        ///   port — drops the `Authorization`, `Proxy-Authorization` and `Cookie` headers, as curl
        ///   and browsers do, for the rest of the chain, wherever they were set: on the request,
        ///   in ``headers``, or in the `httpAdditionalHeaders` of ``urlSessionConfiguration``.
        ///   Same-origin redirects keep them.
        /// - The body of a redirect that is followed never reaches the handler; the response it
        ///   gets, and its ``ResponseHead/url``, are the last one's.
        public var redirects: RedirectBehavior = .follow()
        /// The limit of ``redirects``; setting it keeps a custom behaviour's closure.
        @available(*, deprecated, message: "Set redirects = .follow(maximumRedirects:) (or read redirects.maximumRedirects)")
        public var maximumRedirects: Int {
            get { redirects.maximumRedirects }
            set { redirects.maximumRedirects = newValue }
        }
        /// When a failed request is sent again: ``RetryPolicy/never`` by default. A request can
        /// set its own with ``Request/retry(_:)``.
        public var retryPolicy: RetryPolicy = .never
        /// Interceptors that adapt every request before each attempt and may retry it after a
        /// failure, in order (see ``RequestInterceptor``); a request's own come after these.
        public var interceptors: [any RequestInterceptor] = []
        /// Monitors that see every request's events (see ``EventMonitor``, ``EventLogger``).
        public var eventMonitors: [any EventMonitor] = []
        /// How many bytes of a rejected response's body are kept for its error. Default 64 KiB.
        public var errorBodyLimit = ErrorBody.defaultLimit
        /// The shortest interval between two progress reports, in seconds. Default 0.1.
        public var progressInterval: TimeInterval = 0.1
        /// The most body bytes a call holds in memory, waiting for a slow handler, before it
        /// spills the rest to an anonymous temporary file. Default 8 MiB.
        ///
        /// URLSession on Linux delivers every chunk as soon as it arrives, with no way to pause
        /// the transfer; without this bound a slow handler makes memory grow with the body.
        public var memoryHighWaterMark = 8 * 1024 * 1024
        /// A PEM file of certificate authorities to trust instead of the system's, for servers
        /// with certificates of their own (a company CA, a test CA). Honoured by the curl engine;
        /// the URLSession engine uses the system's trust store (on Linux, FoundationNetworking
        /// offers no way to change it). Certificates are always verified. Default `nil`.
        public var certificateAuthorities: URL?
        /// The certificate the session presents to servers that ask for one (mutual TLS); see
        /// ``ClientCertificate``. The libcurl engine only. Default `nil`.
        public var clientCertificate: ClientCertificate?
        /// The public keys HTTPS servers must have, per host or for every host (pinning); see
        /// ``PublicKeyPins``. The libcurl engine only. Default `nil`: no pinning.
        public var publicKeyPins: PublicKeyPins?
        /// A Unix domain socket every request of the session connects to instead of the URL's
        /// host and port (curl's `--unix-socket`): for daemons that listen on one, such as
        /// Docker's `/var/run/docker.sock`. The URL still gives the request's path and `Host`
        /// header (`http://localhost/v1.43/info`); `https` runs TLS over the socket, checked
        /// against the URL's host. The libcurl engine only. Default `nil`.
        public var unixSocketPath: String?
        /// Connections for some hosts and ports made to other addresses (curl's `--resolve`); see
        /// ``AddressOverride``. The libcurl engine only. Default none.
        public var addressOverrides: [AddressOverride] = []
        /// The local network interface (`eth0`) or address (`192.0.2.7`) connections are made
        /// from (curl's `--interface`); a value that names neither fails the call with
        /// ``HotPotatoError/Code/connectionRefused``'s neighbour, ``HotPotatoError/Code/transportFailed``.
        /// The libcurl engine only. Default `nil`: the system chooses.
        public var localAddress: String?
        /// Seconds a connection may take to be made — the host name resolved, the connection
        /// opened and, for `https`, its TLS handshake done — before the request fails with
        /// ``HotPotatoError/Code/timedOut`` (curl's `--connect-timeout`), however long
        /// ``requestTimeout`` is. Each connection a call makes (for a redirect, a retry, or a
        /// download over several) has its own; a reused connection is not made again. The libcurl
        /// engine only: the URLSession engine has no such limit and fails the requests of a
        /// session with one with ``HotPotatoError/Code/engineUnavailable``. Default `nil`:
        /// connecting is bounded by ``requestTimeout`` alone; so is it for a value of 0 or less.
        public var connectTimeout: TimeInterval?
        /// The oldest version of TLS an `https` connection may use (curl's `--tlsv1.2`); a server
        /// that offers only older ones fails the handshake with ``HotPotatoError/Code/tlsFailure``.
        /// The libcurl engine sets it on every connection (to an origin; a proxy's TLS keeps its
        /// defaults); the URLSession engine on Apple platforms as
        /// `tlsMinimumSupportedProtocolVersion`, while on Linux FoundationNetworking cannot, and
        /// the requests of a session with one fail with ``HotPotatoError/Code/engineUnavailable``.
        /// Default `nil`: the TLS library's own minimum (TLS 1.2 with OpenSSL 3 on Debian).
        public var minimumTLSVersion: TLSVersion?
        /// Which versions of HTTP requests may use: ``HTTPVersionPolicy/automatic`` by default
        /// (HTTP/2 over TLS where the server offers it, concurrent `https` requests to one
        /// origin multiplexed over one connection), or ``HTTPVersionPolicy/http1_1Only``. The
        /// curl engine follows it; the URLSession engine negotiates as its platform does (see
        /// ``HTTPVersionPolicy``).
        public var httpVersionPolicy: HTTPVersionPolicy = .automatic
        /// The proxies requests go through (see ``ProxyConfiguration``). Default ``ProxyConfiguration/none``:
        /// direct connections, whatever `http_proxy` and the like say — set
        /// ``ProxyConfiguration/environment(_:)`` to honour them as curl does. The curl engine
        /// picks the proxy again for each redirect. The URLSession engine on Linux cannot be given
        /// a proxy (FoundationNetworking ignores `connectionProxyDictionary`, and its libcurl reads
        /// the process environment itself): there, once this is set, a request whose proxy would
        /// differ from the environment's fails with ``HotPotatoError/Code/invalidRequest``; left
        /// at its default, requests go the way the environment says, as they always have with
        /// FoundationNetworking (see <doc:UsingAProxy>).
        public var proxy: ProxyConfiguration {
            get { proxyStorage ?? .none }
            set { proxyStorage = newValue }
        }
        /// ``proxy`` as set, or `nil` while it was never set.
        var proxyStorage: ProxyConfiguration?
        /// Where the session keeps the cookies servers set, and sends them from:
        /// ``CookieStore/inMemory`` by default (a new ``CookieJar`` per session, see
        /// ``Session/cookieJar``), ``CookieStore/none``, a ``CookieStore/jar(_:)`` shared between
        /// sessions, or a Foundation ``CookieStore/httpCookieStorage(_:limits:)``.
        ///
        /// Both engines handle cookies alike, in HotPotato's own code (URLSession's cookie handling
        /// is switched off, whatever ``urlSessionConfiguration`` says): every response's
        /// `Set-Cookie` — each redirect's too — is stored by RFC 6265's rules, and every request
        /// HotPotato sends — each redirect and each retry — carries the store's cookies for its
        /// URL. A `Cookie` header you set is sent first, and keeps the redirect rule of
        /// ``maximumRedirects``; a store cookie of the same name as one of yours is left out.
        /// See <doc:Cookies>.
        public var cookieStore: CookieStore = .inMemory
        /// The most connections the session opens to one host (its name and port), on both
        /// engines. Default 8, as AsyncHTTPClient (browsers keep 6; curl has no limit).
        ///
        /// - HTTP/1.1 carries one request at a time per connection: past this many requests in
        ///   flight to one host, the next ones **wait for a connection of that host only** —
        ///   requests to other hosts never wait behind them. Long transfers (event streams, large
        ///   downloads, long polls) hold their connection while they last, so raise the limit
        ///   when a session keeps more of them open to one host.
        /// - HTTP/2 (libcurl engine, over TLS) carries many requests on one connection, up to the
        ///   server's `MAX_CONCURRENT_STREAMS` (and at most 1 000); beyond it the engine opens
        ///   another connection, within this limit, rather than make requests wait.
        /// - 0 or less: no limit.
        ///
        /// The URLSession engine hands it to URLSession (`httpMaximumConnectionsPerHost`). On the
        /// libcurl engine, a download in a lane (``downloadLanes``) keeps a connection of its own,
        /// outside this limit.
        public var maximumConnectionsPerHost = 8
        /// How many bulk downloads — to a file, an `OutputStream`, or discarded (`FileWriter`,
        /// `StreamWriter`, `SelectiveDiscarder`) — the libcurl engine runs at once in a *lane* of
        /// their own: a thread and libcurl multi handle that carries that one transfer and writes
        /// each read straight from libcurl's buffer, on the thread that read it. Default 4; 0
        /// runs every transfer on the session's I/O thread.
        ///
        /// A download on the shared I/O thread is read on one core and written on another, with a
        /// copy between; in a lane it runs as `curl -o` does, one read and one write, and a slow
        /// disk holds back that download only (the lane's thread waits, TCP holds the rest on the
        /// server). A bulk download started while every lane is busy runs on the shared I/O
        /// thread, as every other transfer. A lane's thread ends once it has carried nothing for
        /// 15 s, closing its connection.
        ///
        /// A lane keeps its own connection: a download in one is not counted in
        /// ``maximumConnectionsPerHost`` and does not share an HTTP/2 connection with the
        /// session's other requests, so a host can see up to this many connections more than the
        /// limit. Set 0 where the limit must hold exactly. The URLSession engine ignores it.
        public var downloadLanes = 4
        /// The most bytes a second the session's transfers receive together (aria2's
        /// `--max-overall-download-limit`); `nil` (the default) for no limit. The libcurl engine
        /// shares it evenly among the transfers in flight, adjusted four times a second, and
        /// never busy-waits: a transfer over its share is not read until it is under it again
        /// (TCP holds the rest on the server). A request's own ``Request/limitRate(_:)`` caps it
        /// further. A session with a limit runs no download lanes (``downloadLanes``), so that
        /// every transfer shares it. The URLSession engine cannot limit a rate: its requests fail
        /// with ``HotPotatoError/Code/engineUnavailable``.
        public var receiveRateLimit: Int64?
        /// No longer limits anything: the libcurl engine runs every transfer on one I/O thread
        /// and holds a thread for a transfer only while its handler runs, so there is no global
        /// cap for one host's long transfers to fill. Limit connections per host with
        /// ``maximumConnectionsPerHost``.
        @available(*, deprecated, message: "Transfers no longer hold threads; use maximumConnectionsPerHost")
        public var maximumConcurrentTransfers: Int {
            get { legacyMaximumConcurrentTransfers }
            set { legacyMaximumConcurrentTransfers = newValue }
        }
        private var legacyMaximumConcurrentTransfers = 32
        /// How long the libcurl engine's I/O thread waits without a transfer before it ends
        /// (``CurlEventLoop/idleLifetime``). Internal: tests shorten it to make the thread end and
        /// start again between requests.
        var ioThreadIdleLifetime = CurlEventLoop.idleLifetime
        /// The `URLSessionConfiguration` the session's `URLSession` is made from (TLS settings;
        /// proxies are ``proxy``'s, cookies ``cookieStore``'s: its cookie settings are switched
        /// off). It is copied; HotPotato sets the timeouts above on the copy, and moves its `httpAdditionalHeaders` onto each request (a request's own
        /// header of the same name wins), so that the redirect rule of ``maximumRedirects``
        /// applies to them.
        /// On Linux the copy has no `urlCache`: FoundationNetworking's cache lookup races with
        /// cancellation and can crash the process, and it gathers cacheable bodies in memory.
        /// Default `.ephemeral`, made on first use (a curl session never makes it: it costs about a
        /// millisecond, most of it setting up a cookie store).
        public var urlSessionConfiguration: URLSessionConfiguration {
            get { urlSessionConfigurationStorage.value }
            set { urlSessionConfigurationStorage = LazyURLSessionConfiguration(newValue) }
        }

        /// Shared by copies of the configuration, as the object it holds would be.
        private var urlSessionConfigurationStorage = LazyURLSessionConfiguration()

        /// Creates the default configuration.
        public init() {}
    }
}

/// A `URLSessionConfiguration`, the default `.ephemeral` one made on first use.
final class LazyURLSessionConfiguration: @unchecked Sendable {
    private let lock = NSLock()
    private var configuration: URLSessionConfiguration?

    init(_ configuration: URLSessionConfiguration? = nil) {
        self.configuration = configuration
    }

    var value: URLSessionConfiguration {
        lock.lock()
        defer { lock.unlock() }
        if let configuration { return configuration }
        let made = URLSessionConfiguration.ephemeral
        configuration = made
        return made
    }
}
