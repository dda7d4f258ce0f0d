import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Header fields for the proxy alone (`ProxyConfiguration.headers`, and a request's own
/// `Proxy-Authorization`): in the `CONNECT` request of a tunnel and never through it, with the
/// request to the proxy for an `http` URL, and not at all when the request goes directly. What
/// the URLSession engine on Linux does with them through the environment's proxy is tested in a
/// child process (PotatoProxyTests).
@Suite(.needsNginx) struct ProxyHeaderTests {
    static let token = "Bearer proxy-token"
    static let callersAuthorization = "Basic " + Data("caller:secret".utf8).base64EncodedString()

    /// nginx's echo, as `name → value`.
    private func echoed(_ text: String) -> [String: String] {
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return values
    }

    @Test(arguments: ProxyTests.curlOnly, [false, true])
    func proxyHeadersGoInTheCONNECTAndNeverThroughTheTunnel(engine: Session.Engine, callerAuthorizes: Bool) async throws {
        let nginx = try await TestServers.nginx()
        let tls = try #require(nginx.tls, "nginx has no TLS server: is openssl installed?")
        let proxy = try ForwardingProxy()
        defer { proxy.stop() }
        let session = testSession(engine: engine) { configuration in
            configuration.certificateAuthorities = tls.certificateAuthority
            configuration.proxy = ProxyConfiguration(
                httpsProxy: proxy.url, headers: ["Proxy-Authorization": Self.token, "X-Proxy-Token": "abc"])
        }
        var request = session.get("https://127.0.0.1:\(tls.port)/echo/credentials")
        if callerAuthorizes { request = request.header("Proxy-Authorization", Self.callersAuthorization) }
        let text = try await request.asString().content
        #expect(echoed(text)["proxy-authorization"] == "", "the origin got no proxy header: \(text)")
        #expect(proxy.records.map(\.requestLine) == ["CONNECT 127.0.0.1:\(tls.port) HTTP/1.1"])
        // The request's own Proxy-Authorization replaces the configuration's.
        #expect(proxy.records.first?.proxyAuthorization == (callerAuthorizes ? Self.callersAuthorization : Self.token))
        #expect(proxy.heads.first?["x-proxy-token"] == "abc")
    }

    @Test(arguments: ProxyTests.curlOnly)
    func proxyHeadersGoWithAnHTTPRequestToTheProxy(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let proxy = try ForwardingProxy(requiring: ("user", "password"))
        defer { proxy.stop() }
        let basic = "Basic " + Data("user:password".utf8).base64EncodedString()
        let session = testSession(engine: engine) {
            $0.proxy = ProxyConfiguration(proxy: proxy.url, headers: ["X-Proxy-Token": "abc"])
        }
        let target = nginx.url("/echo/credentials")
        let text = try await session.get(target).header("Proxy-Authorization", basic).asString().content
        #expect(echoed(text)["proxy-authorization"] == "", "the proxy consumed it")
        #expect(proxy.records == [ForwardingProxy.Record(requestLine: "GET \(target.absoluteString) HTTP/1.1", proxyAuthorization: basic)])
        #expect(proxy.heads.first?["x-proxy-token"] == "abc")
    }

    /// Without a proxy there is no one to send a `Proxy-Authorization` to: the origin never gets it.
    @Test(arguments: allEngines) func aProxyAuthorizationIsNotSentWithoutAProxy(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let session = testSession(engine: engine) { $0.proxy = ProxyConfiguration(headers: ["X-Proxy-Token": "abc"]) }
        let text = try await session.get(nginx.url("/echo/credentials"))
            .header("Proxy-Authorization", Self.callersAuthorization).asString().content
        #expect(echoed(text)["proxy-authorization"] == "", "\(text)")
        #expect(echoed(text)["method"] == "GET")
    }
}
