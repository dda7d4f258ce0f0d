import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Redirects on both engines, against real servers: which statuses are followed, how methods and
/// bodies are rewritten, and that credentials never reach another origin (another host, or only
/// another port). httpbin's `/redirect-to` sends any status with any `Location`; `localhost` and
/// `127.0.0.1` are two hosts; nginx's `/echo/credentials` is another port.
@Suite(.needsHTTPBin, .needsNginx) struct RedirectTests {

    /// What httpbin's `/anything` echoes.
    struct Echo: Decodable, Sendable {
        let method: String
        let data: String
        let headers: [String: String]
        let url: String
    }

    /// The credentials every test sends.
    static let credentials: [(name: String, value: String)] = [
        ("Authorization", "Bearer secret-token"),
        ("Proxy-Authorization", "Basic cHJveHk6c2VjcmV0"),
        ("Cookie", "session=secret-cookie"),
    ]

    /// `request` with the `Authorization` and `Proxy-Authorization` credentials (in odd cases:
    /// names match whatever their case) and a harmless header; the cookie comes from the
    /// session's default headers (see `session(_:configure:)`).
    private func sendingCredentials<Handler>(_ request: Request<Handler>) -> Request<Handler> {
        request
            .header("authorization", Self.credentials[0].value)
            .header("PROXY-AUTHORIZATION", Self.credentials[1].value)
            .header("X-Potato", "hot")
    }

    /// A test session sending the credentials' cookie as a default header.
    private func session(_ engine: Session.Engine, configure: (inout Session.Configuration) -> Void = { _ in }) -> Session {
        testSession(engine: engine) { configuration in
            configuration.headers = ["Cookie": Self.credentials[2].value]
            configure(&configuration)
        }
    }

    /// nginx's echo of the credentials, as `name → value` (an absent header echoes as empty).
    private func echoedCredentials(_ text: String) -> [String: String] {
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return values
    }

    // MARK: - Credentials

    @Test(arguments: allEngines, [302, 307])
    func anotherHostGetsNoCredentials(engine: Session.Engine, status: Int) async throws {
        let bin = try await TestServers.httpbin()
        let target = URL(string: "http://localhost:\(bin.port)/anything")!
        let echo = try await sendingCredentials(session(engine).get(bin.redirect(to: target, status: status)))
            .as(Echo.self).content
        #expect(echo.url == target.absoluteString, "the redirect was followed")
        #expect(echo.headers["Authorization"] == nil)
        #expect(echo.headers["Proxy-Authorization"] == nil)
        #expect(echo.headers["Cookie"] == nil)
        #expect(echo.headers["X-Potato"] == "hot", "other headers follow")
    }

    @Test(arguments: allEngines, [302, 307])
    func anotherPortGetsNoCredentials(engine: Session.Engine, status: Int) async throws {
        let bin = try await TestServers.httpbin()
        let nginx = try await TestServers.nginx()
        let target = nginx.url("/echo/credentials")
        let response = try await sendingCredentials(session(engine).get(bin.redirect(to: target, status: status)))
            .asString().response()
        #expect(response.url == target)
        let echoed = echoedCredentials(response.content)
        #expect(echoed["method"] == "GET")
        #expect(echoed["authorization"] == "")
        #expect(echoed["proxy-authorization"] == "")
        #expect(echoed["cookie"] == "")
    }

    /// Only on the curl engine: the URLSession engine cannot be given the test CA on Linux.
    @Test(.enabled(if: Session.Engine.curl.isAvailable))
    func aDowngradeFromHTTPSToHTTPGetsNoCredentials() async throws {
        let nginx = try await TestServers.nginx()
        let tls = try #require(nginx.tls, "nginx has no TLS server: is openssl installed?")
        let session = session(.curl) { $0.certificateAuthorities = tls.certificateAuthority }
        let response = try await sendingCredentials(session.get("https://127.0.0.1:\(tls.port)/downgrade"))
            .asString().response()
        #expect(response.url == nginx.url("/echo/credentials"))
        let echoed = echoedCredentials(response.content)
        #expect(echoed["authorization"] == "")
        #expect(echoed["proxy-authorization"] == "")
        #expect(echoed["cookie"] == "")
    }

    @Test(arguments: allEngines)
    func credentialsDroppedOnceStayDropped(engine: Session.Engine) async throws {
        let bin = try await TestServers.httpbin()
        // localhost → 127.0.0.1 → localhost: back at the first origin, still none.
        let home = URL(string: "http://localhost:\(bin.port)/anything")!
        let away = bin.redirect(to: home, status: 302)
        let start = URL(string: bin.redirect(to: away, status: 302).absoluteString.replacingOccurrences(of: "127.0.0.1", with: "localhost"))!
        let echo = try await sendingCredentials(session(engine).get(start)).as(Echo.self).content
        #expect(echo.url == home.absoluteString)
        #expect(echo.headers["Authorization"] == nil)
        #expect(echo.headers["Proxy-Authorization"] == nil)
        #expect(echo.headers["Cookie"] == nil)
    }

    @Test func urlSessionAdditionalHeadersFollowTheSameRule() async throws {
        let bin = try await TestServers.httpbin()
        let nginx = try await TestServers.nginx()
        let session = testSession(engine: .urlSession) { configuration in
            let urlConfiguration = URLSessionConfiguration.ephemeral
            urlConfiguration.httpAdditionalHeaders = ["Authorization": Self.credentials[0].value]
            configuration.urlSessionConfiguration = urlConfiguration
        }
        let sameOrigin = try await session.get(bin.redirect(to: "/anything", status: 302)).as(Echo.self).content
        #expect(sameOrigin.headers["Authorization"] == Self.credentials[0].value)
        let otherPort = try await session.get(bin.redirect(to: nginx.url("/echo/credentials"), status: 302)).asString().content
        #expect(echoedCredentials(otherPort)["authorization"] == "")
    }

    @Test(arguments: allEngines)
    func sameOriginKeepsCredentialsAndA303DropsTheBody(engine: Session.Engine) async throws {
        let bin = try await TestServers.httpbin()
        let echo = try await sendingCredentials(session(engine).post(bin.redirect(to: "/anything", status: 303)))
            .body(Data("form data".utf8), contentType: "text/plain")
            .as(Echo.self).content
        #expect(echo.headers["Authorization"] == Self.credentials[0].value)
        // Without a proxy, a Proxy-Authorization goes nowhere: never to the origin (see ProxyHeaderTests).
        #expect(echo.headers["Proxy-Authorization"] == nil)
        #expect(echo.headers["Cookie"] == Self.credentials[2].value)
        #expect(echo.method == "GET")
        #expect(echo.data == "")
        #expect(echo.headers["Content-Type"] == nil, "the body's headers go with it")
    }

    // MARK: - Statuses

    @Test(arguments: allEngines, [300, 305, 306])
    func otherRedirectStatusesAreDelivered(engine: Session.Engine, status: Int) async throws {
        let bin = try await TestServers.httpbin()
        let source = bin.redirect(to: "/anything", status: status)
        let response = try await session(engine).get(source).acceptingAnyStatus().asData().response()
        #expect(response.status == status)
        #expect(response.headers["Location"] == "/anything")
        #expect(response.url == source)
    }

    @Test(arguments: allEngines, [301, 302, 303, 307, 308])
    func aRedirectWithoutLocationIsDelivered(engine: Session.Engine, status: Int) async throws {
        let fault = try await TestServers.fault()
        let source = fault.url("/typed?type=application/json&status=\(status)")
        let response = try await session(engine).get(source).acceptingAnyStatus().asString().response()
        #expect(response.status == status)
        #expect(response.headers["Location"] == nil)
        #expect(response.url == source)
        if engine == .curl {
            #expect(response.content == #"{"message":"typed response"}"#)
        } else {
            // FoundationNetworking keeps such a body to itself.
            #expect(response.content == "")
        }
    }

    // MARK: - Methods and bodies

    @Test(arguments: allEngines, [301, 302])
    func postBecomesGetWithoutItsBodyOn301And302(engine: Session.Engine, status: Int) async throws {
        let bin = try await TestServers.httpbin()
        let response = try await session(engine).post(bin.redirect(to: "/anything", status: status))
            .body(Data("posted".utf8), contentType: "text/plain")
            .as(Echo.self).response()
        #expect(response.content.method == "GET")
        #expect(response.content.data == "")
        #expect(response.content.headers["Content-Type"] == nil)
        #expect(response.content.headers["Content-Length"] == nil)
        #expect(response.head.requestMethod == "GET")
    }

    @Test(arguments: allEngines)
    func putBecomesGetWithoutItsBodyOn303(engine: Session.Engine) async throws {
        let bin = try await TestServers.httpbin()
        let echo = try await session(engine).put(bin.redirect(to: "/anything", status: 303))
            .body(Data("put".utf8), contentType: "text/plain")
            .as(Echo.self).content
        #expect(echo.method == "GET")
        #expect(echo.data == "")
        #expect(echo.headers["Content-Type"] == nil)
    }

    @Test(arguments: allEngines)
    func headStaysHeadOn303(engine: Session.Engine) async throws {
        let bin = try await TestServers.httpbin()
        let nginx = try await TestServers.nginx()
        let response = try await session(engine).head(bin.redirect(to: nginx.url("/echo/credentials"), status: 303))
            .discardResponseContent().response()
        #expect(response.status == 200)
        #expect(response.headers["X-Echo-Method"] == "HEAD")
        #expect(response.head.requestMethod == "HEAD")
    }

    @Test(arguments: allEngines, [(HTTPMethod.post, 307), (.post, 308), (.put, 301), (.patch, 302)])
    func methodAndBodyAreSentAgain(engine: Session.Engine, hop: (method: HTTPMethod, status: Int)) async throws {
        let bin = try await TestServers.httpbin()
        let body = String(repeating: "hot potato ", count: 20_000)  // 220 kB: more than one read
        let echo = try await sendingCredentials(session(engine).request(hop.method, bin.redirect(to: "/anything", status: hop.status)))
            .body(Data(body.utf8), contentType: "text/plain")
            .as(Echo.self).content
        #expect(echo.method == hop.method.rawValue)
        #expect(echo.data == body)
        #expect(echo.headers["Content-Type"] == "text/plain")
        #expect(echo.headers["Authorization"] == Self.credentials[0].value)
    }

    @Test(arguments: allEngines, [307, 308])
    func fileBodyIsSentAgainFromItsFirstByte(engine: Session.Engine, status: Int) async throws {
        let bin = try await TestServers.httpbin()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("upload.txt")
        let body = (0..<20_000).map { "line \($0)\n" }.joined()  // about 190 kB
        try Data(body.utf8).write(to: file)
        // Cross-host: the body goes along, the credentials do not.
        let target = URL(string: "http://localhost:\(bin.port)/anything")!
        let echo = try await sendingCredentials(session(engine).post(bin.redirect(to: target, status: status)))
            .body(fileAt: file, contentType: "text/plain")
            .as(Echo.self).content
        #expect(echo.method == "POST")
        #expect(echo.data.count == body.count)
        #expect(echo.data == body)
        #expect(echo.headers["Authorization"] == nil)
    }

    @Test(arguments: allEngines)
    func aDroppedSessionStillFollowsTheRedirectsOfItsCalls(engine: Session.Engine) async throws {
        let bin = try await TestServers.httpbin()
        let second = bin.redirect(to: "/anything", status: 307)
        weak var dropped: Session?
        let call = {
            let session = session(engine)
            dropped = session
            return session.post(bin.redirect(to: second, status: 307))
                .body(Data("still here".utf8), contentType: "text/plain")
                .as(Echo.self).start()
        }()
        #expect(dropped == nil, "the session is gone while its call runs")
        let echo = try await call.response().content
        #expect(echo.method == "POST")
        #expect(echo.data == "still here")
    }

    // MARK: - Where, and how many

    @Test(arguments: allEngines)
    func theHeadIsTheLastResponses(engine: Session.Engine) async throws {
        let bin = try await TestServers.httpbin()
        let nginx = try await TestServers.nginx()
        let target = nginx.url("/echo/credentials")
        // POST → 307 (still POST, another host) → 303 (GET, another port).
        let middle = URL(string: bin.redirect(to: target, status: 303).absoluteString.replacingOccurrences(of: "127.0.0.1", with: "localhost"))!
        let response = try await session(engine).post(bin.redirect(to: middle, status: 307))
            .body(Data("x".utf8), contentType: "text/plain")
            .asString().response()
        #expect(response.status == 200)
        #expect(response.url == target)
        #expect(response.head.requestMethod == "GET")
        #expect(echoedCredentials(response.content)["method"] == "GET")
    }

    @Test(arguments: allEngines)
    func theLimitIsTheConfiguredOne(engine: Session.Engine) async throws {
        let bin = try await TestServers.httpbin()
        // More than URLSession's own cap of 20 per task.
        let session = session(engine) { $0.redirects = .follow(maximumRedirects: 24) }
        let response = try await session.get(bin.url("/redirect/24")).asJSON().response()
        #expect(response.url?.path == "/get")
        let error = await expectFailure { try await session.get(bin.url("/redirect/25")).asJSON().response() }
        #expect(error?.code == .tooManyRedirects)
        #expect(error?.limit == 24)
    }

    @Test(arguments: allEngines)
    func aRedirectToAnotherSchemeFails(engine: Session.Engine) async throws {
        let bin = try await TestServers.httpbin()
        let closed = try freeLoopbackPort()
        let target = URL(string: "ftp://127.0.0.1:\(closed)/file.txt")!
        let error = await expectFailure { try await session(engine).get(bin.redirect(to: target, status: 302)).asData().response() }
        #expect(error?.code == .invalidRequest)
        #expect(error?.status == 302)
        #expect(error?.head?.headers["Location"] == target.absoluteString)
    }
}

extension HTTPBinServer {
    /// httpbin's `/redirect-to`: answers `status` with `Location: target`.
    func redirect(to target: URL, status: Int) -> URL {
        redirect(to: target.absoluteString, status: status)
    }

    /// httpbin's `/redirect-to`: answers `status` with `Location: location` (which may be relative).
    func redirect(to location: String, status: Int) -> URL {
        let encoded = location.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? location
        return url("/redirect-to?url=\(encoded)&status_code=\(status)")
    }
}
