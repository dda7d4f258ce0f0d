import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Cookies from a server that tries what no honest one does — a supercookie for a public suffix,
/// a `Secure` cookie over `http`, a cookie for another site, ten thousand cookies — and cookies
/// across hosts (127.0.0.1 and 127.0.0.2 stand for two hosts; names under `localhost` reach
/// 127.0.0.1 through libcurl's own resolution), on both engines. Every response of the
/// `CookieServer` echoes the `Cookie` header it received.
@Suite struct HostileCookieTests {
    private func echo(_ session: Session, _ url: URL) async throws -> String {
        try await session.get(url).asString().content
    }

    private func pairs(_ header: String) -> Set<String> {
        Set(header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
    }

    @Test(arguments: allEngines)
    func supercookiesInsecureSecureCookiesAndOtherSitesAreIgnored(engine: Session.Engine) async throws {
        let server = try await CookieServer.shared()
        let session = testSession(engine: engine)
        let host = "www.shop.localhost"
        _ = try await echo(session, server.url("/echo", host: host, setting: [
            "ok=1", "parent=1; Domain=shop.localhost",
            "super=1; Domain=.com", "tld=1; Domain=localhost", "suffix=1; Domain=co.uk",
            "secure=1; Secure", "__Secure-prefixed=1",
            "other=1; Domain=example.org", "sibling=1; Domain=other.shop.localhost", "ip=1; Domain=127.0.0.1",
        ]))
        let jar = try #require(session.cookieJar)
        #expect(Set(jar.cookies.map(\.name)) == ["ok", "parent"], "\(jar.cookies.map(\.name))")
        #expect(pairs(try await echo(session, server.url("/echo", host: host))) == ["ok=1", "parent=1"])
        #expect(try await echo(session, server.url("/echo", host: "other.shop.localhost")) == "parent=1")
        #expect(try await echo(session, server.url("/echo")) == "", "nothing for 127.0.0.1")
    }

    /// Nameless cookies (RFC 6265bis) beside named ones, on both engines alike: on the URLSession
    /// engine FoundationNetworking joins the fields with ", ", and `x=1` then `abc` became one
    /// cookie `x` with the value `1, abc`.
    @Test(arguments: allEngines)
    func namelessCookiesStandApartOnBothEngines(engine: Session.Engine) async throws {
        let server = try await CookieServer.shared()
        let session = testSession(engine: engine)
        _ = try await echo(session, server.url("/echo", setting: ["x=1", "abc", "session=s3cr3t; Path=/", "=def; Path=/app"]))
        let jar = try #require(session.cookieJar)
        #expect(Set(jar.cookies.map { "\($0.name)|\($0.value)" }) == ["x|1", "|abc", "session|s3cr3t", "|def"], "\(jar.cookies)")
        #expect(pairs(try await echo(session, server.url("/echo"))) == ["x=1", "abc", "session=s3cr3t"])
    }

    @Test(arguments: allEngines)
    func tenThousandCookiesLeaveABoundedJar(engine: Session.Engine) async throws {
        let server = try await CookieServer.shared()
        let session = testSession(engine: engine, timeout: 60)
        _ = try await echo(session, server.url("/many", query: ["count": "10000"]))
        let jar = try #require(session.cookieJar)
        #expect(jar.count == jar.limits.maximumCookiesPerDomain)
        #expect(jar.cookies.contains { $0.name == "c9999" }, "the newest are kept")
        let sent = pairs(try await echo(session, server.url("/echo")))
        #expect(sent.count == jar.limits.maximumCookiesPerDomain)
        #expect(sent.contains("c9999=9999"))
    }

    @Test(arguments: allEngines)
    func storeCookiesFollowTheirHostAcrossARedirectAndTheCallersStaysBehind(engine: Session.Engine) async throws {
        let server = try await CookieServer.shared()
        let session = testSession(engine: engine)
        let jar = try #require(session.cookieJar)
        jar.add(Cookie(name: "forB", value: "b", domain: "127.0.0.2"))
        // A sets a cookie as it redirects to B: B gets its own cookie, neither A's nor the caller's.
        let toB = server.url("/redirect", setting: ["fromA=a"], query: ["to": server.urlB("/echo").absoluteString])
        #expect(try await session.get(toB).header("Cookie", "caller=secret").asString().content == "forB=b")
        #expect(try await echo(session, server.url("/echo")) == "fromA=a", "A's cookie kept for A")
        // B sets one as it sends us back to A: A gets only its own.
        let toA = server.urlB("/redirect", setting: ["fromB=b2"], query: ["to": server.url("/echo").absoluteString, "status": "307"])
        #expect(try await echo(session, toA) == "fromA=a")
        #expect(pairs(try await echo(session, server.urlB("/echo"))) == ["forB=b", "fromB=b2"])
        // Same origin: the caller's header and the store's cookies both go, the caller's first.
        let sameOrigin = server.url("/redirect", query: ["to": "/echo"])
        #expect(try await session.get(sameOrigin).header("Cookie", "caller=1").asString().content == "caller=1; fromA=a")
    }
}
