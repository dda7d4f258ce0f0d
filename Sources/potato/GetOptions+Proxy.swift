import Foundation
import HotPotato

extension GetOptions {
    /// The proxies, picked as curl picks them: those the environment names (`http_proxy`,
    /// `https_proxy`, `all_proxy`; never `HTTP_PROXY`), `--proxy` in place of them for both
    /// schemes, and the hosts of `no_proxy` reached directly, or those of `--noproxy` instead.
    /// An empty `--proxy` means no proxy at all. `--proxy-header` fields go to the proxy alone.
    func proxyConfiguration(environment: [String: String] = ProcessInfo.processInfo.environment) -> ProxyConfiguration {
        var configuration = ProxyConfiguration.environment(environment)
        if let proxy {
            // Checked by the parser.
            let url = try? Self.proxyURL(proxy)
            configuration.httpProxy = url
            configuration.httpsProxy = url
        }
        if let noProxy { configuration.noProxy = ProxyConfiguration.entries(noProxy) }
        configuration.headers = HTTPHeaders(proxyHeaders.map { ($0.name, $0.value) })
        return configuration
    }

    /// `--proxy`'s value as a URL, `http://` when it has no scheme (as curl); `nil` when empty.
    static func proxyURL(_ text: String) throws(UsageError) -> URL? {
        if text.isEmpty { return nil }
        guard let url = ProxyConfiguration.proxyURL(text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            let full = text.contains("://") ? text : "http://" + text
            if let port = URLComponents(string: full)?.port, !(1...65535).contains(port) {
                throw UsageError("--proxy \"\(text)\": the port \(port) is not one from 1 to 65535")
            }
            throw UsageError("--proxy needs an http:// or https:// proxy URL, like http://proxy.example:3128 (or proxy.example:3128)")
        }
        return url
    }
}
