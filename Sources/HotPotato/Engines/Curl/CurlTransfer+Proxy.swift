import CCurl
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension CurlTransfer {
    /// Sets the proxy of one request (each redirect is configured anew, so each hop gets the
    /// proxy of its own URL), or none.
    ///
    /// Without a proxy, `CURLOPT_PROXY` is set to the empty string: libcurl would otherwise read
    /// `http_proxy`, `https_proxy`, `all_proxy` and `no_proxy` from the environment on its own,
    /// and the configuration alone decides. With one, libcurl sends an `http` request to the
    /// proxy in absolute form and tunnels an `https` one with `CONNECT`; the credentials go in
    /// `Proxy-Authorization: Basic` to the proxy alone (in the `CONNECT` request for a tunnel).
    /// The `CONNECT` response's head is kept from the header callback, which would otherwise
    /// take it for the response's.
    ///
    /// The header fields for the proxy alone (``ProxyConfiguration/headers`` and the request's
    /// `Proxy-Authorization`) go in `CURLOPT_PROXYHEADER`, with `CURLOPT_HEADEROPT` set to
    /// `CURLHEADER_SEPARATE`: libcurl then sends them in the `CONNECT` request only, never
    /// through the tunnel, and with the request itself when it goes to the proxy in absolute
    /// form (an `http` URL); the request's own header list never has a `Proxy-Authorization`
    /// (see `headerList(_:)`).
    func configureProxy(_ handle: UnsafeMutableRawPointer, for proxy: SelectedProxy?) throws(HotPotatoError) {
        func string(_ option: Int32, _ value: String?) {
            if let value {
                value.withCString { _ = hp_curl_setopt_pointer(handle, option, $0) }
            } else {
                hp_curl_setopt_pointer(handle, option, nil)
            }
        }
        string(Int32(HP_CURLOPT_PROXY), proxy?.address ?? "")
        guard let proxy else { return }
        string(Int32(HP_CURLOPT_PROXYUSERNAME), proxy.user)
        string(Int32(HP_CURLOPT_PROXYPASSWORD), proxy.password)
        hp_curl_setopt_long(handle, Int32(HP_CURLOPT_SUPPRESS_CONNECT_HEADERS), 1)
        // An https:// proxy is verified with the same authorities as the servers.
        if let authorities = configuration.certificateAuthorities {
            string(Int32(HP_CURLOPT_PROXY_CAINFO), authorities.path)
        }
        hp_curl_setopt_long(handle, Int32(HP_CURLOPT_HEADEROPT), Int(HP_CURLHEADER_SEPARATE))
        let fields = configuration.proxy.proxyHeaderFields(for: request)
        guard !fields.isEmpty else { return }
        guard let list = Self.makeHeaderList(fields.map { $0.value.isEmpty ? "\($0.name);" : "\($0.name): \($0.value)" }) else {
            throw HotPotatoError(.transportFailed, reason: "libcurl could not build the proxy's header list.")
        }
        proxyHeaderList = list
        hp_curl_setopt_pointer(handle, Int32(HP_CURLOPT_PROXYHEADER), list)
    }

    /// The head to hand over when the proxy refused to open a tunnel (its `CONNECT` answered
    /// with a status other than 2xx, such as 407 for missing or wrong credentials), or `nil`.
    ///
    /// The refusal is the response, as a proxy's 407 to an `http` request is: the handler's gate
    /// sees the status, and a rejected call fails with ``HotPotatoError/Code/unacceptableStatus``
    /// and that status. The `CONNECT` response's headers and body are not kept.
    func refusedTunnelHead(_ handle: UnsafeMutableRawPointer) -> ResponseHead? {
        // Only a request that had a tunnel to open (libcurl clears the code at each perform).
        guard !configuration.proxy.isDirect, let url = request.url, url.scheme?.lowercased() == "https",
              configuration.proxy.proxy(for: url) != nil else { return nil }
        var status = 0
        guard hp_curl_getinfo_long(handle, Int32(HP_CURLINFO_HTTP_CONNECTCODE), &status) == 0,
              status >= 100, !(200..<300).contains(status) else { return nil }
        return ResponseHead(status: status, headers: [:], url: request.url, requestMethod: request.httpMethod ?? "GET")
    }

    /// Whether the process environment names a proxy that libcurl would use on its own (one of
    /// ``ProxyConfiguration``'s proxy variables). Read for each request, since a program may set
    /// one later: a few `getenv` calls, which allocate nothing.
    static func environmentNamesAProxy() -> Bool {
        proxyVariableNames.value.contains { name in getenv(name).map { $0.pointee != 0 } ?? false }
    }

    /// ``ProxyConfiguration``'s proxy variables, without `no_proxy`, as C strings made once: a
    /// `String` argument to `getenv` would be copied to a C string (a malloc) at every call, five
    /// a request.
    private static let proxyVariableNames = UncheckedSendable(
        (ProxyConfiguration.proxyVariables.http + ProxyConfiguration.proxyVariables.https + ProxyConfiguration.proxyVariables.all)
            .map { UnsafePointer<CChar>(strdup($0)!) })
}
