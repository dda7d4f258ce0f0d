import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Requests through a proxy on both engines, against the tests' own ``ForwardingProxy`` in front
/// of nginx (plain and TLS) and the fault server (for redirects). nginx's `/echo/credentials`
/// shows what reached the origin; the proxy's records show what reached the proxy.
///
/// The URLSession engine on Linux cannot be given a proxy (FoundationNetworking ignores
/// `connectionProxyDictionary`; its libcurl reads the process environment only): there an
/// explicit proxy must fail with `invalidRequest` before anything is sent. What it can do, follow
/// the environment, is tested in a child process (PotatoProxyTests).
@Suite(.needsNginx) struct ProxyTests {
    static let user = "potato user"
    static let password = "p@ss:wörd"

    /// The `Proxy-Authorization` the credentials make.
    static var expectedAuthorization: String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// Whether `engine` can send a request through an explicit proxy here.
    static func takesExplicitProxy(_ engine: Session.Engine) -> Bool {
        #if canImport(FoundationNetworking)
        return engine == .curl
        #else
        return true
        #endif
    }

    static var curlOnly: [Session.Engine] { allEngines.filter { $0 == .curl } }

    /// nginx's echo, as `name → value`.
    private func echoed(_ text: String) -> [String: String] {
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return values
    }

    @Test(arguments: allEngines)
    func anExplicitProxyCarriesTheRequestAndTheBodyArrivesIntact(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let proxy = try ForwardingProxy()
        defer { proxy.stop() }
        let session = testSession(engine: engine) { $0.proxy = ProxyConfiguration(proxy: proxy.url) }
        let target = nginx.url("/medium.bin")
        guard Self.takesExplicitProxy(engine) else {
            let error = await expectFailure { try await session.get(target).asData().content }
            #expect(error?.code == .invalidRequest, "\(error.map { "\($0)" } ?? "no error")")
            #expect(error?.reason.contains("FoundationNetworking") == true)
            #expect(proxy.records.isEmpty, "nothing was sent")
            return
        }
        let data = try await session.get(target).asData().content
        #expect(data == (try Data(contentsOf: nginx.root.appendingPathComponent("medium.bin"))))
        #expect(proxy.records.map(\.requestLine) == ["GET \(target.absoluteString) HTTP/1.1"])
        #expect(proxy.records.first?.proxyAuthorization == nil)
    }

    @Test(arguments: ProxyTests.curlOnly)
    func credentialsReachTheProxyAndNeverTheOrigin(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let proxy = try ForwardingProxy(requiring: (Self.user, Self.password))
        defer { proxy.stop() }
        let session = testSession(engine: engine) {
            $0.proxy = ProxyConfiguration(proxy: proxy.url(user: Self.user, password: Self.password))
        }
        let text = try await session.get(nginx.url("/echo/credentials")).asString().content
        #expect(echoed(text)["proxy-authorization"] == "", "the origin got no proxy credentials")
        #expect(echoed(text)["authorization"] == "")
        #expect(proxy.records.map(\.proxyAuthorization) == [Self.expectedAuthorization], "percent-decoded")
    }

    @Test(arguments: ProxyTests.curlOnly)
    func httpsGoesThroughACONNECTTunnelWithTheCredentialsInTheCONNECTOnly(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let tls = try #require(nginx.tls, "nginx has no TLS server: is openssl installed?")
        let proxy = try ForwardingProxy(requiring: (Self.user, Self.password))
        defer { proxy.stop() }
        let session = testSession(engine: engine) { configuration in
            configuration.certificateAuthorities = tls.certificateAuthority
            configuration.proxy = ProxyConfiguration(httpsProxy: proxy.url(user: Self.user, password: Self.password))
        }
        let text = try await session.get("https://127.0.0.1:\(tls.port)/echo/credentials").asString().content
        #expect(echoed(text)["method"] == "GET")
        #expect(echoed(text)["proxy-authorization"] == "", "the origin got no proxy credentials")
        #expect(proxy.records == [ForwardingProxy.Record(
            requestLine: "CONNECT 127.0.0.1:\(tls.port) HTTP/1.1", proxyAuthorization: Self.expectedAuthorization)])
    }

    /// A missing or wrong credential: the proxy's 407 is the response, for a forwarded request as
    /// for a refused tunnel.
    @Test(arguments: ProxyTests.curlOnly, [nil, "wrong"] as [String?])
    func aMissingOrWrongCredentialIsA407(engine: Session.Engine, password: String?) async throws {
        let nginx = try await TestServers.nginx()
        let tls = try #require(nginx.tls, "nginx has no TLS server: is openssl installed?")
        let proxy = try ForwardingProxy(requiring: (Self.user, Self.password))
        defer { proxy.stop() }
        let proxyURL = password.map { proxy.url(user: Self.user, password: $0) } ?? proxy.url
        let session = testSession(engine: engine) { configuration in
            configuration.certificateAuthorities = tls.certificateAuthority
            configuration.proxy = ProxyConfiguration(proxy: proxyURL)
        }
        for target in [nginx.url("/small.json"), URL(string: "https://127.0.0.1:\(tls.port)/small.json")!] {
            let error = await expectFailure { try await session.get(target).asData().content }
            #expect(error?.code == .unacceptableStatus, "\(target): \(error.map { "\($0)" } ?? "no error")")
            #expect(error?.status == 407, "\(target)")
        }
        #expect(proxy.records.count == 2)
        #expect(proxy.records.allSatisfy { $0.proxyAuthorization != Self.expectedAuthorization })
    }

    /// Entries of the no-proxy list that match the URL: the request goes directly, on both engines.
    @Test(arguments: allEngines, [
        ("127.0.0.1", "127.0.0.1"), ("127.0.0.1", "127.0.0.0/8"), ("127.0.0.1", " *"), ("127.0.0.1", "127.0.0.1:{port}"),
        ("localhost", "LOCALHOST"), ("localhost", ".localhost"), ("localhost", "example.com, localhost"),
    ])
    func matchingNoProxyEntriesBypassTheProxy(engine: Session.Engine, hostAndEntry: (String, String)) async throws {
        let (host, entry) = hostAndEntry
        let nginx = try await TestServers.nginx()
        let proxy = try ForwardingProxy()
        defer { proxy.stop() }
        let entries = ProxyConfiguration.entries(entry.replacingOccurrences(of: "{port}", with: String(nginx.port)))
        let session = testSession(engine: engine) { $0.proxy = ProxyConfiguration(proxy: proxy.url, noProxy: entries) }
        let json = try await session.get("http://\(host):\(nginx.port)/small.json").asJSON().content
        #expect(json["name"] == "HotPotato")
        #expect(proxy.records.isEmpty)
    }

    /// Entries that do not match: the request goes through the proxy.
    @Test(arguments: ProxyTests.curlOnly, ["localhost", "127.0.0.2", "0.0.1", "127.0.0.1:1", "10.0.0.0/8", "ocalhost"])
    func otherNoProxyEntriesDoNotBypassTheProxy(engine: Session.Engine, entry: String) async throws {
        let nginx = try await TestServers.nginx()
        let proxy = try ForwardingProxy()
        defer { proxy.stop() }
        let session = testSession(engine: engine) { $0.proxy = ProxyConfiguration(proxy: proxy.url, noProxy: [entry]) }
        _ = try await session.get(nginx.url("/small.json")).asJSON().content
        #expect(proxy.records.map(\.requestLine) == ["GET \(nginx.url("/small.json").absoluteString) HTTP/1.1"])
    }

    /// A redirect from a host that goes through the proxy to one that does not, and back: the
    /// proxy is picked for each hop.
    @Test(arguments: ProxyTests.curlOnly)
    func eachRedirectHopPicksItsOwnProxy(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let fault = try await TestServers.fault()
        let proxy = try ForwardingProxy()
        defer { proxy.stop() }
        let session = testSession(engine: engine) { $0.proxy = ProxyConfiguration(proxy: proxy.url, noProxy: ["localhost"]) }
        // 127.0.0.1 (proxied) → localhost (direct).
        let direct = URL(string: "http://localhost:\(nginx.port)/echo/credentials")!
        let first = redirect(fault, to: direct)
        let response = try await session.get(first).asString().response()
        #expect(response.url == direct)
        #expect(proxy.records.map(\.requestLine) == ["GET \(first.absoluteString) HTTP/1.1"])
        // localhost (direct) → 127.0.0.1 (proxied).
        let proxied = nginx.url("/echo/credentials")
        let second = redirect(fault, to: proxied, host: "localhost")
        let again = try await session.get(second).asString().response()
        #expect(again.url == proxied)
        #expect(proxy.records.map(\.requestLine).dropFirst() == ["GET \(proxied.absoluteString) HTTP/1.1"])
    }

    /// On Linux the URLSession engine checks each hop too: a redirect to a host its URLSession
    /// would reach another way than the configuration says fails, with the redirect's head.
    @Test(.enabled(if: !ProxyTests.takesExplicitProxy(.urlSession)))
    func urlSessionRefusesARedirectHopItCannotSendThroughTheProxy() async throws {
        let nginx = try await TestServers.nginx()
        let fault = try await TestServers.fault()
        let proxy = try ForwardingProxy()
        defer { proxy.stop() }
        let session = testSession(engine: .urlSession) { $0.proxy = ProxyConfiguration(proxy: proxy.url, noProxy: ["127.0.0.1"]) }
        let error = await expectFailure {
            try await session.get(redirect(fault, to: URL(string: "http://localhost:\(nginx.port)/small.json")!)).asData().content
        }
        #expect(error?.code == .invalidRequest, "\(error.map { "\($0)" } ?? "no error")")
        #expect(error?.status == 302, "the redirect's head")
        #expect(proxy.records.isEmpty)
    }

    /// Nothing listens at the proxy's port: the connection is refused, and the error does not
    /// show the credentials.
    @Test(arguments: ProxyTests.curlOnly)
    func anUnreachableProxyIsARefusedConnection(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let port = try freeLoopbackPort()
        let session = testSession(engine: engine) {
            $0.proxy = ProxyConfiguration(proxy: URL(string: "http://user:secret@127.0.0.1:\(port)")!)
        }
        let error = await expectFailure { try await session.get(nginx.url("/small.json")).asData().content }
        #expect(error?.code == .connectionRefused, "\(error.map { "\($0)" } ?? "no error")")
        #expect(error.map { "\($0)" }?.contains("secret") == false)
    }

    /// A proxy URL that is not http or https fails the request before anything is sent, and the
    /// message does not show the credentials.
    @Test(arguments: allEngines)
    func anUnusableProxyIsAnInvalidRequest(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let session = testSession(engine: engine) {
            $0.proxy = ProxyConfiguration(proxy: URL(string: "socks5://user:secret@127.0.0.1:1")!)
        }
        let error = await expectFailure { try await session.get(nginx.url("/small.json")).asData().content }
        #expect(error?.code == .invalidRequest)
        #expect(error?.reason.contains("secret") == false)
        #expect(error?.reason.contains("<redacted>") == true)
    }

    /// The command line of `cURLDescription(revealingSecrets: true)`, run with the real curl,
    /// goes through the same proxy with the same credentials.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "needs the curl tool"))
    func theCURLDescriptionGoesThroughTheSameProxy() async throws {
        let nginx = try await TestServers.nginx()
        let proxy = try ForwardingProxy(requiring: (Self.user, Self.password))
        defer { proxy.stop() }
        let session = testSession(engine: .automatic) {
            $0.proxy = ProxyConfiguration(proxy: proxy.url(user: Self.user, password: Self.password))
        }
        let request = session.get(nginx.url("/echo/credentials"))
        #expect(!request.cURLDescription().contains("s:w"), "redacted by default")
        let line = request.cURLDescription(revealingSecrets: true)
        let output = try await offThePool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", line + " -s -S"]
            let pipe = ChildProcesses.pipe()
            process.standardOutput = pipe
            try ChildProcesses.run(process)
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            try ChildProcesses.waitForExit(process)
            return String(decoding: data, as: UTF8.self)
        }
        #expect(echoed(output)["proxy-authorization"] == "", "\(line): \(output)")
        #expect(proxy.records.map(\.proxyAuthorization) == [Self.expectedAuthorization], "\(line)")
    }

    /// A `302` from the fault server, named `host`, to `target`.
    private func redirect(_ fault: FaultServer, to target: URL, host: String = "127.0.0.1") -> URL {
        var components = URLComponents(url: fault.url("/raw"), resolvingAgainstBaseURL: false)!
        components.host = host
        components.queryItems = [
            URLQueryItem(name: "status", value: "302"), URLQueryItem(name: "h", value: "Location: \(target.absoluteString)"),
            URLQueryItem(name: "h", value: "Content-Length: 0"),
        ]
        return components.url!
    }
}
