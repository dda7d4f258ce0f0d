import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Proxies and the environment, in processes of their own (the test process's environment is
/// never changed): `potato` honours `http_proxy` and the like as curl does, `--proxy` and
/// `--noproxy` override them; a library session left at `ProxyConfiguration.none`
/// (`hotpotato-probe`) ignores them.
///
/// Every child gets every proxy variable, empty (which curl, FoundationNetworking's libcurl and
/// `ProxyConfiguration.environment` all take as not set) unless a test sets it, so that the
/// environment the tests run in cannot change the outcome.
@Suite(.needsNginx) struct PotatoProxyTests {
    static let user = "potato"
    static let password = "s3cret:@"

    /// The proxy variables, all set and empty, with `variables` in place of some.
    private func environment(_ variables: [String: String]) -> [String: String] {
        var environment: [String: String] = [:]
        for name in ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"] {
            environment[name] = ""
        }
        return environment.merging(variables) { _, new in new }
    }

    private func potato(_ arguments: [String], environment variables: [String: String]) async throws -> PotatoProcess.Outcome {
        let environment = environment(variables)
        return try await offThePool { try PotatoProcess(arguments, environment: environment).wait() }
    }

    /// The engine names potato takes, for the engines that can run here.
    static var engines: [String] { allEngineNames }

    @Test func helpListsTheProxyOptions() async throws {
        let help = try await PotatoProcess.run(["get", "--help"])
        #expect(help.text.contains("-x, --proxy URL"))
        #expect(help.text.contains("--noproxy LIST"))
        #expect(help.text.contains("HTTP_PROXY"))
    }

    @Test(arguments: [["-x", "ftp://proxy.example"], ["--proxy", "http://"], ["--proxy"], ["-x", "http://127.0.0.1:99999"], ["-x", "127.0.0.1:0"]])
    func aBadProxyIsAUsageError(options: [String]) async throws {
        let outcome = try await potato(["get", "http://127.0.0.1:1/"] + options, environment: [:])
        #expect(outcome.status == 2)
        #expect(outcome.error.contains("--proxy"))
    }

    /// On both engines: the URLSession engine's libcurl reads the same variable, credentials
    /// included, and potato's configuration agrees with it.
    @Test(arguments: PotatoProxyTests.engines)
    func theEnvironmentsProxyIsHonouredWithItsCredentials(engine: String) async throws {
        let nginx = try await TestServers.nginx()
        let proxy = try ForwardingProxy(requiring: (Self.user, Self.password))
        defer { proxy.stop() }
        let target = nginx.url("/echo/credentials")
        let outcome = try await potato(
            ["get", target.absoluteString, "--engine", engine, "-q"],
            environment: ["http_proxy": proxy.url(user: Self.user, password: Self.password).absoluteString])
        #expect(outcome.status == 0, "\(outcome.error)")
        #expect(outcome.text.contains("proxy-authorization=\n"), "the origin got no proxy credentials: \(outcome.text)")
        #expect(proxy.records == [ForwardingProxy.Record(
            requestLine: "GET \(target.absoluteString) HTTP/1.1",
            proxyAuthorization: "Basic " + Data("\(Self.user):\(Self.password)".utf8).base64EncodedString())])
    }

    /// `https_proxy`: a `CONNECT` tunnel with the credentials, on both engines. Neither trusts
    /// the test CA here (potato has no option for one, and FoundationNetworking uses the
    /// system's), so the TLS handshake through the tunnel fails: what matters is the tunnel.
    @Test(arguments: PotatoProxyTests.engines)
    func httpsGoesThroughTheEnvironmentsProxyInATunnel(engine: String) async throws {
        let nginx = try await TestServers.nginx()
        let tls = try #require(nginx.tls, "nginx has no TLS server: is openssl installed?")
        let proxy = try ForwardingProxy(requiring: (Self.user, Self.password))
        defer { proxy.stop() }
        let outcome = try await potato(
            ["get", "https://127.0.0.1:\(tls.port)/small.json", "--engine", engine, "-q"],
            environment: ["HTTPS_PROXY": proxy.url(user: Self.user, password: Self.password).absoluteString])
        #expect(outcome.status == 7, "a TLS failure: \(outcome.error)")
        #expect(proxy.records == [ForwardingProxy.Record(
            requestLine: "CONNECT 127.0.0.1:\(tls.port) HTTP/1.1",
            proxyAuthorization: "Basic " + Data("\(Self.user):\(Self.password)".utf8).base64EncodedString())])
    }

    /// `--proxy-header` goes to the proxy with an `http` request, on both engines.
    @Test(arguments: PotatoProxyTests.engines)
    func aProxyHeaderGoesToTheProxyWithAnHTTPRequest(engine: String) async throws {
        let nginx = try await TestServers.nginx()
        let proxy = try ForwardingProxy()
        defer { proxy.stop() }
        let outcome = try await potato(
            ["get", nginx.url("/small.json").absoluteString, "--engine", engine, "-q", "--proxy-header", "X-Proxy-Token: abc"],
            environment: ["http_proxy": proxy.url.absoluteString])
        #expect(outcome.status == 0, "\(outcome.error)")
        #expect(proxy.heads.first?["x-proxy-token"] == "abc")
    }

    /// Through a tunnel, `--proxy-header` (and a `Proxy-Authorization` given with `-H`) goes in the
    /// `CONNECT` on the curl engine; the URLSession engine cannot put it there, and fails before
    /// sending anything rather than send it to the origin through the tunnel.
    @Test(arguments: PotatoProxyTests.engines, ["--proxy-header", "-H"])
    func aProxyHeaderGoesInTheCONNECTOrNowhere(engine: String, option: String) async throws {
        let nginx = try await TestServers.nginx()
        let tls = try #require(nginx.tls, "nginx has no TLS server: is openssl installed?")
        let proxy = try ForwardingProxy(requiring: (Self.user, Self.password))
        defer { proxy.stop() }
        let basic = "Basic " + Data("\(Self.user):\(Self.password)".utf8).base64EncodedString()
        let outcome = try await potato(
            ["get", "https://127.0.0.1:\(tls.port)/small.json", "--engine", engine, "-q", option, "Proxy-Authorization: \(basic)"],
            environment: ["HTTPS_PROXY": proxy.url.absoluteString])
        if engine == "curl" {
            // The test CA is not trusted here: what matters is the tunnel the proxy opened.
            #expect(outcome.status == 7, "a TLS failure past the tunnel: \(outcome.error)")
            #expect(proxy.records == [ForwardingProxy.Record(requestLine: "CONNECT 127.0.0.1:\(tls.port) HTTP/1.1", proxyAuthorization: basic)])
        } else {
            #expect(outcome.status == 3, "\(outcome.error)")
            #expect(outcome.error.contains("proxy alone"), "\(outcome.error)")
            #expect(proxy.records.isEmpty, "nothing was sent")
        }
    }

    /// Ignored as curl ignores it (httpoxy), by potato and by FoundationNetworking's libcurl.
    @Test(arguments: PotatoProxyTests.engines)
    func upperCaseHTTPProxyIsIgnored(engine: String) async throws {
        let nginx = try await TestServers.nginx()
        let proxy = try ForwardingProxy()
        defer { proxy.stop() }
        let outcome = try await potato(
            ["get", nginx.url("/small.json").absoluteString, "--engine", engine, "-q"], environment: ["HTTP_PROXY": proxy.url.absoluteString])
        #expect(outcome.status == 0, "\(outcome.error)")
        #expect(proxy.records.isEmpty)
    }

    @Test(arguments: PotatoProxyTests.engines)
    func noProxyInTheEnvironmentBypassesIt(engine: String) async throws {
        let nginx = try await TestServers.nginx()
        let proxy = try ForwardingProxy()
        defer { proxy.stop() }
        let outcome = try await potato(
            ["get", nginx.url("/small.json").absoluteString, "--engine", engine, "-q"],
            environment: ["http_proxy": proxy.url.absoluteString, "NO_PROXY": "127.0.0.0/8"])
        #expect(outcome.status == 0, "\(outcome.error)")
        #expect(outcome.text.contains("HotPotato"))
        #expect(proxy.records.isEmpty)
    }

    /// `--noproxy` replaces `no_proxy`; the URLSession engine cannot be kept off the environment's
    /// proxy, and says so rather than use it.
    @Test(arguments: PotatoProxyTests.engines)
    func theNoProxyOptionBypassesTheEnvironmentsProxy(engine: String) async throws {
        let nginx = try await TestServers.nginx()
        let proxy = try ForwardingProxy()
        defer { proxy.stop() }
        let outcome = try await potato(
            ["get", nginx.url("/small.json").absoluteString, "--engine", engine, "-q", "--noproxy", "example.com,127.0.0.1"],
            environment: ["http_proxy": proxy.url.absoluteString, "no_proxy": "example.com"])
        if engine == "curl" {
            #expect(outcome.status == 0, "\(outcome.error)")
        } else {
            #expect(outcome.status == 3)
            #expect(outcome.error.contains("FoundationNetworking"), "\(outcome.error)")
        }
        #expect(proxy.records.isEmpty)
    }

    @Test(.enabled(if: Session.Engine.curl.isAvailable))
    func theProxyOptionWinsOverTheEnvironment() async throws {
        let nginx = try await TestServers.nginx()
        let chosen = try ForwardingProxy()
        let ignored = try ForwardingProxy()
        defer { chosen.stop(); ignored.stop() }
        let target = nginx.url("/small.json")
        let outcome = try await potato(
            ["get", target.absoluteString, "--engine", "curl", "-q", "--proxy", "127.0.0.1:\(chosen.port)"],
            environment: ["http_proxy": ignored.url.absoluteString, "all_proxy": ignored.url.absoluteString])
        #expect(outcome.status == 0, "\(outcome.error)")
        #expect(chosen.records.map(\.requestLine) == ["GET \(target.absoluteString) HTTP/1.1"])
        #expect(ignored.records.isEmpty)

        let none = try await potato(
            ["get", target.absoluteString, "--engine", "curl", "-q", "--proxy", ""], environment: ["http_proxy": ignored.url.absoluteString])
        #expect(none.status == 0, "\(none.error)")
        #expect(ignored.records.isEmpty, "an empty --proxy: no proxy at all")
    }

    /// A library session with the default configuration, in a process whose environment names a
    /// proxy: the curl engine goes directly (libcurl would read `http_proxy` itself without the
    /// empty `CURLOPT_PROXY`); the URLSession engine on Linux, which cannot go directly there,
    /// goes the environment's way as FoundationNetworking always has, since no proxy was set.
    @Test(arguments: allEngines)
    func theDefaultConfigurationIgnoresTheEnvironmentWhereItCan(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let proxy = try ForwardingProxy()
        defer { proxy.stop() }
        let environment = environment(["http_proxy": proxy.url.absoluteString, "all_proxy": proxy.url.absoluteString])
        let arguments = [nginx.url("/small.json").absoluteString, "0", "8388608", engine == .curl ? "curl" : "urlsession"]
        let (status, text) = try await offThePool { try Self.runProbe(arguments, environment: environment) }
        #expect(status == 0, "\(text)")
        #expect(text.contains("bytes=57"), "\(text)")
        if engine == .curl {
            #expect(proxy.records.isEmpty, "the curl engine connects directly")
        } else {
            // FoundationNetworking's libcurl follows the environment, and a configuration that
            // never set a proxy lets it, as it always has.
            #expect(!proxy.records.isEmpty)
        }
    }

    /// Runs `hotpotato-probe` (built beside the test bundle); returns its exit status and output.
    private static func runProbe(_ arguments: [String], environment: [String: String]) throws -> (Int32, String) {
        let probe = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("hotpotato-probe")
        let result = try ChildProcesses.output(
            of: probe.path, arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { _, new in new })
        return (result.status, String(decoding: result.output, as: UTF8.self))
    }
}
