import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// A session's cookie store against httpbin, on both engines alike: cookies set by a redirect,
/// kept for the session's later requests, deleted, combined with the caller's own `Cookie`
/// header, switched off, shared between sessions, and kept in a Foundation `HTTPCookieStorage`.
@Suite(.needsHTTPBin) struct CookieSessionTests {
    /// httpbin's `/cookies`: the cookies the request carried.
    private func sentCookies(_ session: Session, _ url: URL, header: String? = nil) async throws -> [String: String] {
        var request = session.get(url)
        if let header { request = request.header("Cookie", header) }
        return try await request.as([String: String].self, atKeyPath: "cookies").content
    }

    @Test(arguments: allEngines)
    func cookiesAreKeptAcrossTheRedirectAndLaterRequests(engine: Session.Engine) async throws {
        let bin = try await TestServers.httpbin()
        let session = testSession(engine: engine)
        // /cookies/set answers 302 with Set-Cookie, to /cookies: the redirect's cookies go to the next hop.
        let set = try await sentCookies(session, bin.url("/cookies/set?session=abc123&theme=dark"))
        #expect(set == ["session": "abc123", "theme": "dark"])
        #expect(Set(session.cookieJar?.cookies.map(\.name) ?? []) == ["session", "theme"])
        #expect(try await sentCookies(session, bin.url("/cookies")) == ["session": "abc123", "theme": "dark"])
        let afterDelete = try await sentCookies(session, bin.url("/cookies/delete?theme"))
        #expect(afterDelete == ["session": "abc123"])
        #expect(session.cookieJar?.cookies.map(\.name) == ["session"])
        // A chained call after a "login" finds the cookie.
        let json = try await session.get(bin.url("/cookies")).asJSON().content
        #expect(json["cookies.session"] == "abc123")
    }

    @Test(arguments: allEngines)
    func theCallersCookieHeaderComesWithTheStores(engine: Session.Engine) async throws {
        let bin = try await TestServers.httpbin()
        let session = testSession(engine: engine)
        _ = try await sentCookies(session, bin.url("/cookies/set?session=abc123"))
        #expect(try await sentCookies(session, bin.url("/cookies"), header: "mine=1") == ["mine": "1", "session": "abc123"])
        #expect(try await sentCookies(session, bin.url("/cookies"), header: "session=mine") == ["session": "mine"],
                "the caller's cookie wins a name clash")
    }

    @Test(arguments: allEngines)
    func aSessionWithoutAStoreKeepsAndSendsNothing(engine: Session.Engine) async throws {
        let bin = try await TestServers.httpbin()
        let session = testSession(engine: engine) { $0.cookieStore = .none }
        #expect(session.cookieJar == nil)
        #expect(try await sentCookies(session, bin.url("/cookies/set?session=abc123")).isEmpty)
        #expect(try await sentCookies(session, bin.url("/cookies")).isEmpty)
        #expect(try await sentCookies(session, bin.url("/cookies"), header: "mine=1") == ["mine": "1"])
    }

    @Test(arguments: allEngines)
    func eachSessionHasItsOwnJarUnlessTheyShareOne(engine: Session.Engine) async throws {
        let bin = try await TestServers.httpbin()
        let first = testSession(engine: engine)
        let second = testSession(engine: engine)
        _ = try await sentCookies(first, bin.url("/cookies/set?session=abc123"))
        #expect(try await sentCookies(second, bin.url("/cookies")).isEmpty, "in memory: fresh per session")

        let jar = CookieJar()
        let sharing = allEngines.map { other in testSession(engine: other) { $0.cookieStore = .jar(jar) } }
        let writer = testSession(engine: engine) { $0.cookieStore = .jar(jar) }
        #expect(writer.cookieJar === jar)
        _ = try await sentCookies(writer, bin.url("/cookies/set?shared=yes"))
        for session in sharing {
            #expect(try await sentCookies(session, bin.url("/cookies")) == ["shared": "yes"], "\(session.engine)")
        }
        jar.add(Cookie(name: "added", value: "by-hand", domain: "127.0.0.1"))
        jar.remove(Cookie.Key(name: "shared", domain: "127.0.0.1", path: "/"))
        #expect(try await sentCookies(writer, bin.url("/cookies")) == ["added": "by-hand"])
    }

    @Test(arguments: allEngines)
    func anHTTPCookieStorageHoldsTheCookies(engine: Session.Engine) async throws {
        let bin = try await TestServers.httpbin()
        let storage = HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: "hotpotato-tests-\(UUID().uuidString)")
        defer { for cookie in storage.cookies ?? [] { storage.deleteCookie(cookie) } }
        let session = testSession(engine: engine) { $0.cookieStore = .httpCookieStorage(storage) }
        #expect(session.cookieJar == nil)
        #expect(try await sentCookies(session, bin.url("/cookies/set?session=abc123")) == ["session": "abc123"])
        #expect(storage.cookies?.map(\.name) == ["session"])
        // A cookie put there by someone else is sent too; a deleted one is not.
        storage.setCookie(try #require(HTTPCookie(properties: [.name: "other", .value: "1", .domain: "127.0.0.1", .path: "/"])))
        #expect(try await sentCookies(session, bin.url("/cookies/delete?session")) == ["other": "1"])
        #expect(storage.cookies?.map(\.name) == ["other"])
    }

    @Test(arguments: allEngines)
    func aCookieSetByAFailedAttemptIsSentOnTheRetry(engine: Session.Engine) async throws {
        let server = try await CookieServer.shared()
        let session = testSession(engine: engine) { $0.retryPolicy = RetryPolicy(maximumAttempts: 2, initialDelay: 0.05) }
        let url = server.url("/flaky", setting: ["attempt=first"], query: ["key": "retry-\(engine)-\(UUID().uuidString)"])
        let response = try await session.get(url).asString().response()
        #expect(response.status == 200)
        #expect(response.content == "attempt=first")
    }
}
