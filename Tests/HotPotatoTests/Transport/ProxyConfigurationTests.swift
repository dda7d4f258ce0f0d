import Foundation
import Testing
@testable import HotPotato

/// `ProxyConfiguration`: the environment read as curl reads it, curl's no-proxy rule, and the
/// credentials split from the proxy URL. No network.
@Suite struct ProxyConfigurationTests {
    private func proxy(_ text: String?) -> String? {
        guard let text else { return nil }
        return ProxyConfiguration.environment(["http_proxy": text]).httpProxy?.absoluteString
    }

    @Test func theDefaultIsNoProxyWhateverTheEnvironment() {
        #expect(Session.Configuration().proxy == .none)
        #expect(ProxyConfiguration.none.proxy(for: URL(string: "http://example.com/")!) == nil)
        #expect(ProxyConfiguration.environment([:]) == .none)
    }

    @Test func variablesAreReadAsCurlReadsThem() {
        let all = ProxyConfiguration.environment([
            "http_proxy": "http://lower:1", "HTTP_PROXY": "http://upper:2",
            "https_proxy": "http://secure-lower:3", "HTTPS_PROXY": "http://secure-upper:4",
            "no_proxy": "a.example, b.example", "NO_PROXY": "c.example",
        ])
        #expect(all.httpProxy == URL(string: "http://lower:1"))
        #expect(all.httpsProxy == URL(string: "http://secure-lower:3"), "lower case wins")
        #expect(all.noProxy == ["a.example", "b.example"], "lower case wins")

        let upper = ProxyConfiguration.environment([
            "HTTP_PROXY": "http://upper:2", "HTTPS_PROXY": "http://secure-upper:4", "NO_PROXY": "c.example d.example",
        ])
        #expect(upper.httpProxy == nil, "HTTP_PROXY is ignored (httpoxy), as curl ignores it")
        #expect(upper.httpsProxy == URL(string: "http://secure-upper:4"))
        #expect(upper.noProxy == ["c.example", "d.example"])
    }

    @Test func allProxyIsTheFallback() {
        let lower = ProxyConfiguration.environment(["all_proxy": "http://all:1", "ALL_PROXY": "http://ALL:2", "https_proxy": "http://s:3"])
        #expect(lower.httpProxy == URL(string: "http://all:1"))
        #expect(lower.httpsProxy == URL(string: "http://s:3"))
        let upper = ProxyConfiguration.environment(["ALL_PROXY": "http://ALL:2", "HTTP_PROXY": "http://ignored:9"])
        #expect(upper.httpProxy == URL(string: "http://ALL:2"), "HTTP_PROXY is not even a variable here")
        #expect(upper.httpsProxy == URL(string: "http://ALL:2"))
    }

    /// As curl's `curl_getenv`, which returns nothing for an empty variable.
    @Test func anEmptyVariableCountsAsNotSet() {
        let configuration = ProxyConfiguration.environment([
            "http_proxy": " ", "https_proxy": "", "HTTPS_PROXY": "http://upper:2", "all_proxy": "", "ALL_PROXY": "http://ALL:1",
        ])
        #expect(configuration.httpProxy == URL(string: "http://ALL:1"))
        #expect(configuration.httpsProxy == URL(string: "http://upper:2"))
        #expect(ProxyConfiguration.environment(["no_proxy": "", "NO_PROXY": "*"]).noProxy == ["*"])
        #expect(ProxyConfiguration.environment(["http_proxy": "", "HTTPS_PROXY": " "]) == .none)
    }

    @Test func aValueWithoutSchemeIsHTTP() {
        #expect(proxy("proxy.example:3128") == "http://proxy.example:3128")
        #expect(proxy(" https://proxy.example\n") == "https://proxy.example")
    }

    @Test func aValueThatIsNotAURLFailsTheRequestsThatWouldUseIt() throws {
        let configuration = ProxyConfiguration.environment(["http_proxy": "http://user:secret@exa mple:1", "no_proxy": "localhost"])
        #expect(configuration.httpProxy == nil)
        do {
            _ = try configuration.selectedProxy(for: URL(string: "http://example.com/")!)
            Issue.record("no error")
        } catch {
            #expect(error.code == .invalidRequest)
            #expect(error.reason.contains("http_proxy"))
            #expect(!error.reason.contains("secret"))
        }
        #expect(try configuration.selectedProxy(for: URL(string: "http://localhost/")!) == nil, "exempted")
        #expect(try configuration.selectedProxy(for: URL(string: "https://example.com/")!) == nil, "another scheme")
    }

    @Test func theProxyIsPickedByScheme() {
        let configuration = ProxyConfiguration(httpProxy: URL(string: "http://plain:1"), httpsProxy: URL(string: "http://tunnel:2"))
        #expect(configuration.proxy(for: URL(string: "http://example.com/")!) == URL(string: "http://plain:1"))
        #expect(configuration.proxy(for: URL(string: "HTTPS://example.com/")!) == URL(string: "http://tunnel:2"))
        #expect(configuration.proxy(for: URL(string: "data:,x")!) == nil)
    }

    /// curl's rule, and the port entries of our own.
    @Test(arguments: [
        ("*", "http://anything.example/", true),
        ("example.com", "http://example.com/", true),
        ("example.com", "http://a.b.EXAMPLE.com/", true),
        (".example.com", "http://example.com/", true),
        (".example.com", "http://a.example.com/", true),
        ("example.com.", "http://a.example.com./", true),
        ("EXAMPLE.COM", "http://example.com/", true),
        ("example.com", "http://notexample.com/", false),
        ("example.com", "http://example.com.evil/", false),
        ("a.example.com", "http://example.com/", false),
        ("127.0.0.1", "http://127.0.0.1:8080/", true),
        ("127.0.0.1", "http://127.0.0.2/", false),
        ("127.0.0.0/8", "http://127.200.0.1/", true),
        ("10.0.0.0/8", "http://11.0.0.1/", false),
        ("192.168.1.0/23", "http://192.168.0.9/", true),
        ("192.168.1.0/24", "http://192.168.0.9/", false),
        ("::1", "http://[::1]:80/", true),
        ("fd00::/8", "http://[fd12::1]/", true),
        ("fd00::/8", "http://[fe80::1]/", false),
        ("127.0.0.1", "http://localhost/", false),
        ("localhost", "http://127.0.0.1/", false),
        ("example.com:8080", "http://example.com:8080/", true),
        ("example.com:8080", "http://example.com/", false),
        ("example.com:443", "https://a.example.com/", true),
        ("[::1]:8080", "http://[::1]:8080/", true),
        ("[::1]:8080", "http://[::1]:8081/", false),
        ("example.com:port", "http://example.com/", false),
        ("", "http://example.com/", false),
    ])
    func noProxyEntries(entry: String, url: String, bypasses: Bool) {
        let configuration = ProxyConfiguration(proxy: URL(string: "http://proxy:3128")!, noProxy: [entry])
        #expect(configuration.bypasses(URL(string: url)!) == bypasses)
        #expect((configuration.proxy(for: URL(string: url)!) == nil) == bypasses)
    }

    @Test func entriesAreSplitAtCommasAndWhitespace() {
        #expect(ProxyConfiguration.entries(" localhost,.example.com\t10.0.0.0/8 ,, ") == ["localhost", ".example.com", "10.0.0.0/8"])
    }

    @Test func credentialsArePercentDecodedAndKeptApart() throws {
        let configuration = ProxyConfiguration(proxy: URL(string: "http://us%20er:p%40ss%3Aw%C3%B6rd@proxy.example:3128/")!)
        let selected = try #require(try configuration.selectedProxy(for: URL(string: "https://example.com/")!))
        #expect(selected.address == "http://proxy.example:3128")
        #expect(selected.user == "us er")
        #expect(selected.password == "p@ss:wörd")
        #expect(selected.text(revealingSecrets: false) == "http://<redacted>@proxy.example:3128")
        #expect(selected.text(revealingSecrets: true) == "http://us%20er:p%40ss%3Aw%C3%B6rd@proxy.example:3128")
        let bare = try #require(try ProxyConfiguration(proxy: URL(string: "HTTP://Proxy")!).selectedProxy(for: URL(string: "http://a/")!))
        #expect(bare.address == "http://Proxy")
        #expect(bare.user == nil && bare.password == nil)
        let v6 = try #require(try ProxyConfiguration(proxy: URL(string: "http://[::1]:3128")!).selectedProxy(for: URL(string: "http://a/")!))
        #expect(v6.address == "http://[::1]:3128")
    }

    @Test(arguments: ["socks5://proxy:1080", "ftp://proxy", "http:///nohost"])
    func onlyHTTPAndHTTPSProxiesAreUsable(text: String) throws {
        let configuration = ProxyConfiguration(proxy: URL(string: text)!)
        #expect(throws: HotPotatoError.self) { try configuration.selectedProxy(for: URL(string: "http://example.com/")!) }
    }

    @Test func theCURLDescriptionNamesTheProxyWithItsCredentialsRedacted() {
        let session = Session(configuration: {
            var configuration = Session.Configuration()
            configuration.proxy = ProxyConfiguration(
                httpProxy: URL(string: "http://me:secret@proxy.example:3128")!, noProxy: ["localhost", ".internal"])
            return configuration
        }())
        let line = session.get("http://example.com/a").cURLDescription()
        #expect(line.contains("--proxy 'http://<redacted>@proxy.example:3128' --noproxy localhost,.internal"), "\(line)")
        #expect(!line.contains("secret"))
        #expect(session.get("http://example.com/a").cURLDescription(revealingSecrets: true).contains("--proxy http://me:secret@proxy.example:3128"))
        let bare = Session(configuration: {
            var configuration = Session.Configuration()
            configuration.proxy = ProxyConfiguration(proxy: URL(string: "http://proxy.example:3128")!)
            return configuration
        }())
        #expect(bare.get("https://example.com/a").cURLDescription().contains("--proxy http://proxy.example:3128 --noproxy ''"))
        #expect(!session.get("https://example.com/a").cURLDescription().contains("--proxy"), "no proxy for https")
        #expect(!session.get("http://localhost/a").cURLDescription().contains("--proxy"), "exempted")
    }

    @Test func aProxyAddressIsReadAsCurlReadsIt() {
        #expect(ProxyConfiguration.proxyURL("proxy.example:3128")?.absoluteString == "http://proxy.example:3128")
        #expect(ProxyConfiguration.proxyURL("https://user:pw@proxy.example")?.absoluteString == "https://user:pw@proxy.example")
        #expect(ProxyConfiguration.proxyURL("") == nil)
        #expect(ProxyConfiguration.proxyURL("http://") == nil)
        #expect(ProxyConfiguration.proxyURL("not a url") == nil)
        // The environment's reading is the same.
        let configuration = ProxyConfiguration.environment(["http_proxy": "proxy.example:3128", "https_proxy": "not a url"])
        #expect(configuration.httpProxy == ProxyConfiguration.proxyURL("proxy.example:3128"))
        #expect(configuration.httpsProxy == nil)
    }
}
