import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import HotPotato

/// How the store's cookies and a caller's `Cookie` header travel through ``RedirectPolicy``, the
/// seam both engines share, without a network: the caller's header keeps the credentials rule
/// (dropped on a redirect to another origin), the store's cookies follow their own domains.
@Suite struct CookieRedirectPolicyTests {
    private static let hostA = URL(string: "http://a.example/start")!
    private static let hostB = URL(string: "http://b.example/landing")!

    private func policy(_ jar: CookieJar) -> RedirectPolicy {
        var policy = RedirectPolicy(.follow())
        policy.cookies = CookieExchange(store: jar)
        return policy
    }

    private func redirect(from url: URL, to location: URL, setting cookies: [String] = []) -> ResponseHead {
        ResponseHead(
            status: 302, headers: HTTPHeaders([("Location", location.absoluteString)] + cookies.map { ("Set-Cookie", $0) }),
            url: url, requestMethod: "GET")
    }

    @Test func theCallersCookieComesFirstAndWinsANameClash() {
        let jar = CookieJar()
        jar.add(Cookie(name: "store", value: "1", domain: "a.example"))
        jar.add(Cookie(name: "mine", value: "from-store", domain: "a.example"))
        var request = URLRequest(url: Self.hostA)
        request.setValue("mine=1", forHTTPHeaderField: "Cookie")
        let first = policy(jar).firstRequest(request)
        #expect(first.value(forHTTPHeaderField: "Cookie") == "mine=1; store=1")
        #expect(policy(jar).firstRequest(URLRequest(url: Self.hostA)).value(forHTTPHeaderField: "Cookie") == "store=1; mine=from-store", "oldest first")
        #expect(policy(jar).firstRequest(URLRequest(url: Self.hostB)).value(forHTTPHeaderField: "Cookie") == nil)
    }

    @Test func storeCookiesFollowTheirDomainsAndTheCallersIsDroppedAcrossOrigins() throws {
        let jar = CookieJar()
        jar.add(Cookie(name: "forB", value: "b", domain: "b.example"))
        let policy = policy(jar)
        var request = URLRequest(url: Self.hostA)
        request.setValue("caller=secret", forHTTPHeaderField: "Cookie")
        let first = policy.firstRequest(request)
        // A sets a cookie on its redirect to B: stored before B's request is made, not sent to B.
        let toB = try #require(try policy.nextRequest(
            after: first, response: redirect(from: Self.hostA, to: Self.hostB, setting: ["fromA=1"]), redirectsFollowed: 0))
        #expect(toB.request.value(forHTTPHeaderField: "Cookie") == "forB=b", "the store's cookie for B, not the caller's")
        #expect(jar.cookies.map(\.name).contains("fromA"))
        // Back to A: the caller's header stays dropped; A's stored cookie goes.
        let backToA = try #require(try policy.nextRequest(
            after: toB.request, response: redirect(from: Self.hostB, to: URL(string: "http://a.example/end")!), redirectsFollowed: 1))
        #expect(backToA.request.value(forHTTPHeaderField: "Cookie") == "fromA=1")
    }

    @Test func aSameOriginRedirectKeepsTheCallersCookieBesideTheStores() throws {
        let jar = CookieJar()
        let policy = policy(jar)
        var request = URLRequest(url: Self.hostA)
        request.setValue("caller=1", forHTTPHeaderField: "Cookie")
        let first = policy.firstRequest(request)
        #expect(first.value(forHTTPHeaderField: "Cookie") == "caller=1")
        let next = try #require(try policy.nextRequest(
            after: first, response: redirect(from: Self.hostA, to: URL(string: "http://a.example/next")!, setting: ["set=1"]),
            redirectsFollowed: 0))
        #expect(next.request.value(forHTTPHeaderField: "Cookie") == "caller=1; set=1")
        let again = try #require(try policy.nextRequest(
            after: next.request, response: redirect(from: URL(string: "http://a.example/next")!, to: URL(string: "http://a.example/last")!),
            redirectsFollowed: 1))
        #expect(again.request.value(forHTTPHeaderField: "Cookie") == "caller=1; set=1", "the store's part is not repeated")
    }

    @Test func aRedirectThatFailsStillStoresItsCookies() {
        let jar = CookieJar()
        var policy = RedirectPolicy(.follow(maximumRedirects: 1))
        policy.cookies = CookieExchange(store: jar)
        let first = policy.firstRequest(URLRequest(url: Self.hostA))
        #expect(throws: HotPotatoError.self) {
            try policy.nextRequest(after: first, response: redirect(from: Self.hostA, to: Self.hostA, setting: ["late=1"]), redirectsFollowed: 1)
        }
        #expect(jar.cookies.map(\.name) == ["late"])
    }

    @Test func theFinalResponseIsLeftToTheTransfer() throws {
        let jar = CookieJar()
        let policy = policy(jar)
        let final = ResponseHead(status: 200, headers: ["Set-Cookie": "final=1"], url: Self.hostA, requestMethod: "GET")
        #expect(try policy.nextRequest(after: URLRequest(url: Self.hostA), response: final, redirectsFollowed: 0) == nil)
        #expect(jar.count == 0, "stored once, by the transfer that receives the head")
        CookieExchange(store: jar).receive(final)
        #expect(jar.cookies.map(\.name) == ["final"])
    }

    @Test func withoutAStoreNothingChanges() throws {
        let policy = RedirectPolicy(.follow())
        var request = URLRequest(url: Self.hostA)
        request.setValue("caller=1", forHTTPHeaderField: "Cookie")
        #expect(policy.firstRequest(request) == request)
        let next = try #require(try policy.nextRequest(
            after: request, response: redirect(from: Self.hostA, to: Self.hostB, setting: ["x=1"]), redirectsFollowed: 0))
        #expect(next.request.value(forHTTPHeaderField: "Cookie") == nil)
    }
}
