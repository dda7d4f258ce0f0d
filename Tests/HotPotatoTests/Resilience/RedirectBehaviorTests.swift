import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Redirect behaviour per session and per request, against httpbin, on both engines: follow, do
/// not follow, and a closure that sees each hop and may rewrite or refuse it.
@Suite(.needsHTTPBin) struct RedirectBehaviorTests {
    struct Echo: Decodable, Sendable {
        let url: String
        let headers: [String: String]
    }

    @Test(arguments: allEngines)
    func doNotFollowMakesTheRedirectTheResponse(engine: Session.Engine) async throws {
        let bin = try await TestServers.httpbin()
        let target = bin.url("/anything/target")
        let response = try await testSession(engine: engine).get(bin.redirect(to: target, status: 302))
            .redirects(.doNotFollow).acceptingAnyStatus().discardResponseContent().response()
        #expect(response.head.status == 302)
        #expect(response.head.headers["Location"] == target.absoluteString)
    }

    @Test(arguments: allEngines)
    func aRequestsBehaviourReplacesTheSessions(engine: Session.Engine) async throws {
        let bin = try await TestServers.httpbin()
        let session = testSession(engine: engine) { $0.redirects = .doNotFollow }
        let target = bin.url("/anything/followed")
        let echo = try await session.get(bin.redirect(to: target, status: 307)).redirects(.follow()).as(Echo.self).content
        #expect(echo.url == target.absoluteString)
        let refused = await expectFailure { try await session.get(bin.redirect(to: target, status: 307)).response() }
        #expect(refused?.status == 307, "the session's own behaviour: the redirect is the response, rejected as a 3xx")
    }

    @Test(arguments: allEngines)
    func aClosureSeesEachHopAndMayRewriteIt(engine: Session.Engine) async throws {
        let bin = try await TestServers.httpbin()
        let hops = Locked<[RedirectHop]>([])
        let rewritten = bin.url("/anything/rewritten")
        let behavior = RedirectBehavior.custom { hop in
            hops.withLock { $0.append(hop) }
            var request = hop.request
            request.url = rewritten
            request.setValue("yes", forHTTPHeaderField: "X-Rewritten")
            return .rewrite(request)
        }
        let echo = try await testSession(engine: engine).get(bin.redirect(to: bin.url("/anything/original"), status: 302))
            .redirects(behavior).as(Echo.self).content
        #expect(echo.url == rewritten.absoluteString)
        #expect(echo.headers["X-Rewritten"] == "yes")
        let seen = hops.withLock { $0 }
        #expect(seen.count == 1)
        #expect(seen.first?.response.status == 302)
        #expect(seen.first?.request.url == bin.url("/anything/original"))
        #expect(seen.first?.redirectsFollowed == 0)
    }

    @Test(arguments: allEngines)
    func aClosureMayStopOrFail(engine: Session.Engine) async throws {
        let bin = try await TestServers.httpbin()
        let start = bin.redirect(to: bin.url("/anything/elsewhere"), status: 301)
        let stopped = try await testSession(engine: engine).get(start)
            .redirects(.custom { _ in .doNotFollow }).accepting(statusCodes: [301]).discardResponseContent().response()
        #expect(stopped.head.status == 301)
        let failed = await expectFailure {
            try await testSession(engine: engine).get(start).redirects(.custom { _ in .fail(reason: "not there") }).response()
        }
        #expect(failed?.code == .invalidRequest)
        #expect(failed?.reason == "not there")
        #expect(failed?.status == 301)
    }

    @Test(arguments: allEngines)
    func aRewriteToAnotherOriginLosesTheCredentials(engine: Session.Engine) async throws {
        let bin = try await TestServers.httpbin()
        let away = URL(string: "http://localhost:\(bin.port)/anything/away")!
        let behavior = RedirectBehavior.custom { hop in
            var request = hop.request
            request.url = away
            return .rewrite(request)
        }
        let echo = try await testSession(engine: engine).get(bin.redirect(to: bin.url("/anything/home"), status: 302))
            .header("Authorization", "Bearer secret").redirects(behavior).as(Echo.self).content
        #expect(echo.url == away.absoluteString)
        #expect(echo.headers["Authorization"] == nil)
    }

    @Test(arguments: allEngines)
    func theLimitHoldsForACustomBehaviour(engine: Session.Engine) async throws {
        let bin = try await TestServers.httpbin()
        let error = await expectFailure {
            try await testSession(engine: engine).get(bin.url("/redirect/3")).redirects(.custom(maximumRedirects: 2) { _ in .follow }).response()
        }
        #expect(error?.code == .tooManyRedirects)
        #expect(error?.limit == 2)
    }
}
