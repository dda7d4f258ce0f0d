import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// `Request.withoutHeader(_:)` (curl's `-H 'Name:'`): the request goes without the field — the
/// chain's earlier ones, the session's default and the engine's own — as the server sees it
/// (the fault server's `/request-headers` echoes what arrived); a field set later is sent; the
/// URLSession engine refuses what Foundation adds itself. And potato's `-H 'Name:'`,
/// `-H 'Name;'` and `-A ''`, read as curl reads them.
@Suite struct OmittedHeaderTests {
    private func sent(_ request: Request<Accumulator<Data>>) async throws -> [String: String] {
        try await request.as([String: String].self).content
    }

    @Test func theCurlEngineSendsNoneOfItsDefaultsThatAreLeftOut() async throws {
        try #require(Session.Engine.curl.isAvailable)
        let fault = try await TestServers.fault()
        let session = testSession(engine: .curl)
        let normal = try await sent(session.get(fault.url("/request-headers")))
        #expect(normal["user-agent"] == "HotPotato")
        #expect(normal["accept"] == "*/*")
        #expect(normal["accept-encoding"] != nil)

        let without = try await sent(session.get(fault.url("/request-headers"))
            .withoutHeader("User-Agent").withoutHeader("accept").withoutHeader("Accept-Encoding").header("X-Empty", ""))
        #expect(without["user-agent"] == nil)
        #expect(without["accept"] == nil)
        #expect(without["accept-encoding"] == nil)
        // An empty value is a field sent empty, not one left out.
        #expect(without["x-empty"] == "")
        #expect(without["host"] != nil)
    }

    @Test(arguments: allEngines) func theChainAndTheSessionDefaultsAreLeftOutUntilALaterFieldPutsItBack(engine: Session.Engine) async throws {
        let fault = try await TestServers.fault()
        let session = testSession(engine: engine) { $0.headers = ["X-Default": "session", "X-Kept": "kept"] }
        let echoed = try await sent(session.get(fault.url("/request-headers"))
            .header("X-Earlier", "1").withoutHeader("x-earlier")
            .withoutHeader("X-Default")
            .withoutHeader("X-Later").header("X-Later", "2"))
        #expect(echoed["x-earlier"] == nil)
        #expect(echoed["x-default"] == nil)
        #expect(echoed["x-kept"] == "kept")
        #expect(echoed["x-later"] == "2")
    }

    @Test func whatIsLeftOutStaysOutAfterARedirect() async throws {
        try #require(Session.Engine.curl.isAvailable)
        let fault = try await TestServers.fault()
        var components = URLComponents(url: fault.url("/raw"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "status", value: "302"), URLQueryItem(name: "h", value: "Location: /request-headers")]
        let echoed = try await sent(testSession(engine: .curl).get(components.url!).withoutHeader("User-Agent").withoutHeader("Accept"))
        #expect(echoed["user-agent"] == nil)
        #expect(echoed["accept"] == nil)
    }

    @Test(arguments: allEngines) func withoutCookieTheStoreAddsNone(engine: Session.Engine) async throws {
        let fault = try await TestServers.fault()
        let session = testSession(engine: engine)
        var components = URLComponents(url: fault.url("/raw"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "h", value: "Set-Cookie: flavour=salted; Path=/"), URLQueryItem(name: "body", value: "ok")]
        _ = try await session.get(components.url!).asData().content
        #expect(try await sent(session.get(fault.url("/request-headers")))["cookie"] == "flavour=salted")
        #expect(try await sent(session.get(fault.url("/request-headers")).withoutHeader("Cookie"))["cookie"] == nil)
    }

    @Test func theURLSessionEngineRefusesToLeaveOutWhatFoundationAdds() async throws {
        let fault = try await TestServers.fault()
        let session = testSession(engine: .urlSession)
        for name in ["User-Agent", "accept", "Accept-Encoding", "Host"] {
            let error = await expectFailure { try await sent(session.get(fault.url("/request-headers")).withoutHeader(name)) }
            #expect(error?.code == .engineUnavailable, "\(name): \(String(describing: error))")
        }
        // Unless the request sets one of its own.
        let echoed = try await sent(session.get(fault.url("/request-headers")).withoutHeader("User-Agent").header("User-Agent", "mine"))
        #expect(echoed["user-agent"] == "mine")
    }

    @Test(arguments: allEngines) func framingFieldsAndInvalidNamesCannotBeLeftOut(engine: Session.Engine) async throws {
        // Nothing listens there: a request that went out would fail with .connectionRefused.
        let url = URL(string: "http://127.0.0.1:\(try freeLoopbackPort())/")!
        for name in ["Content-Length", "transfer-encoding", "Bad Name", ""] {
            let error = await expectFailure { try await testSession(engine: engine).post(url).body(Data("x".utf8)).withoutHeader(name).asData().content }
            #expect(error?.code == .invalidRequest, "\(name.debugDescription): \(String(describing: error))")
        }
    }

    @Test func theCurlCommandLineSaysWhatIsLeftOutAndWhatIsSentEmpty() throws {
        let request = testSession(engine: .curl).get(URL(string: "http://127.0.0.1:9/")!).withoutHeader("user-agent").header("X-Empty", "")
        let line = request.cURLDescription()
        // (Quoted only where the shell needs it.)
        #expect(line.contains("-H User-Agent: ") || line.contains("-H 'User-Agent:'"), "\(line)")
        #expect(line.contains("-H 'X-Empty;'"), "\(line)")
    }

    @Test func potatoReadsTheFormsAsCurlDoes() async throws {
        try #require(Session.Engine.curl.isAvailable)
        let fault = try await TestServers.fault()
        let outcome = try await PotatoProcess.run([
            "get", fault.url("/request-headers").absoluteString, "--string",
            "-H", "Accept:", "-H", "X-Empty;", "-A", "", "-H", "X-Twice: 1", "-H", "X-Twice:",
        ])
        #expect(outcome.status == 0, "\(outcome.error)")
        let echoed = try JSONDecoder().decode([String: String].self, from: outcome.output)
        #expect(echoed["accept"] == nil)
        #expect(echoed["user-agent"] == nil)
        #expect(echoed["x-empty"] == "")
        // As curl: `Name:` keeps out a default, not a field another -H gives.
        #expect(echoed["x-twice"] == "1")

        let refused = try await PotatoProcess.run(["get", fault.url("/request-headers").absoluteString, "--engine", "urlsession", "-H", "User-Agent:"])
        #expect(refused.status != 0)
        #expect(refused.error.contains("User-Agent") || refused.error.contains("user-agent"), "\(refused.error)")
    }
}
