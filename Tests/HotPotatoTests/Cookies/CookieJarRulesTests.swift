import Foundation
import Testing
@testable import HotPotato

/// A ``CookieJar``'s storage and matching rules (RFC 6265 sections 5.1, 5.3 and 5.4, and
/// RFC 6265bis), fed `Set-Cookie` fields as a response from a URL would.
@Suite struct CookieJarRulesTests {
    /// Stores `setCookies` as the response to `url` would.
    private func set(_ jar: CookieJar, _ url: String, _ setCookies: String...) {
        jar.storeCookies(from: HTTPHeaders(setCookies.map { ("Set-Cookie", $0) }), for: URL(string: url)!)
    }

    private func names(_ jar: CookieJar, _ url: String) -> [String] {
        jar.cookies(for: URL(string: url)!).map(\.name)
    }

    @Test func hostOnlyCookiesGoToTheirHostAlone() {
        let jar = CookieJar()
        set(jar, "http://www.example.com/", "a=1")
        #expect(names(jar, "http://www.example.com/") == ["a"])
        #expect(names(jar, "http://WWW.Example.COM/x") == ["a"], "hosts compare case-insensitively")
        #expect(names(jar, "http://sub.www.example.com/").isEmpty, "host-only: not to subdomains")
        #expect(names(jar, "http://example.com/").isEmpty)
        #expect(names(jar, "http://otherexample.com/").isEmpty)
        #expect(jar.cookies.first?.isHostOnly == true)
        #expect(jar.cookies.first?.domain == "www.example.com")
    }

    /// RFC 6265bis: a nameless cookie is kept (one per domain and path: a later one replaces
    /// it), sent as its value alone, written to and read from a cookie file.
    @Test func namelessCookiesAreKeptAndSentAsTheirValue() throws {
        let jar = CookieJar()
        set(jar, "http://www.example.com/", "noeq; Path=/", "a=1")
        #expect(jar.cookieHeader(for: URL(string: "http://www.example.com/")!) == "noeq; a=1")
        set(jar, "http://www.example.com/", "=later; Path=/")
        #expect(jar.cookieHeader(for: URL(string: "http://www.example.com/")!) == "later; a=1")
        let copy = CookieJar()
        _ = copy.addCookies(fromNetscapeCookieFile: jar.netscapeCookieFile())
        #expect(copy.cookieHeader(for: URL(string: "http://www.example.com/")!) == "later; a=1")
    }

    @Test func domainCookiesGoToTheDomainAndItsSubdomains() {
        let jar = CookieJar()
        set(jar, "http://www.example.com/", "a=1; Domain=example.com", "b=2; Domain=.WWW.example.com")
        #expect(names(jar, "http://example.com/") == ["a"])
        #expect(names(jar, "http://deep.sub.example.com/") == ["a"])
        #expect(Set(names(jar, "http://www.example.com/")) == ["a", "b"])
        #expect(names(jar, "http://badexample.com/").isEmpty, "a suffix that is not at a dot does not match")
        #expect(jar.cookies.allSatisfy { !$0.isHostOnly })
    }

    @Test func cookiesForAnotherSiteOrAPublicSuffixAreIgnored() {
        let jar = CookieJar()
        set(jar, "http://www.example.com/",
            "other=1; Domain=example.org", "child=1; Domain=sub.www.example.com", "tld=1; Domain=com", "dot=1; Domain=.com")
        set(jar, "http://shop.example.co.uk/", "uk=1; Domain=co.uk", "ok=1; Domain=example.co.uk")
        set(jar, "http://127.0.0.1/", "ip=1; Domain=0.0.1", "other=1; Domain=127.0.0.2")
        #expect(jar.cookies.map(\.name) == ["ok"], "\(jar.cookies)")
    }

    @Test func publicSuffixesOfTheList() {
        // Whichever decides here (libpsl or the fallback), these are public suffixes.
        for suffix in ["com", "uk", "co.uk", "github.io", "localhost"] {
            #expect(PublicSuffixList.isPublicSuffix(suffix), "\(suffix) (\(PublicSuffixList.source))")
        }
        for domain in ["example.com", "example.co.uk", "me.github.io"] {
            #expect(!PublicSuffixList.isPublicSuffix(domain), "\(domain) (\(PublicSuffixList.source))")
        }
        #expect(PublicSuffixList.isCookieDomainAcceptable(host: "a.b.localhost", domain: "b.localhost"))
        #expect(!PublicSuffixList.isCookieDomainAcceptable(host: "a.b.localhost", domain: "localhost"))
        #expect(!PublicSuffixList.isCookieDomainAcceptable(host: "x.github.io", domain: "github.io"))
    }

    @Test(.enabled(if: PublicSuffixList.source == "libpsl", "libpsl is not installed"))
    func libpslKnowsSuffixesTheFallbackDoesNot() {
        #expect(PublicSuffixList.isPublicSuffix("pvt.k12.ma.us"))
        #expect(PublicSuffixList.isPublicSuffix("anything.kawasaki.jp"), "a wildcard rule")
        #expect(!PublicSuffixList.isPublicSuffix("city.kawasaki.jp"), "an exception to it")
        #expect(!PublicSuffixList.isFallbackPublicSuffix("pvt.k12.ma.us"))
    }

    @Test func theFallbackIsConservative() {
        #expect(PublicSuffixList.isFallbackPublicSuffix("com"))
        #expect(PublicSuffixList.isFallbackPublicSuffix("localhost"))
        #expect(PublicSuffixList.isFallbackPublicSuffix("co.uk"))
        #expect(!PublicSuffixList.isFallbackPublicSuffix("example.com"))
    }

    @Test func aPublicSuffixHostMaySetAHostOnlyCookieForItself() {
        let jar = CookieJar()
        set(jar, "http://co.uk/", "a=1; Domain=co.uk")
        #expect(jar.cookies.first?.isHostOnly == true)
        #expect(names(jar, "http://example.co.uk/").isEmpty)
    }

    @Test func ipAddressHostsGetHostOnlyCookies() {
        let jar = CookieJar()
        set(jar, "http://127.0.0.1:8080/", "a=1", "b=2; Domain=127.0.0.1")
        #expect(jar.cookies.allSatisfy { $0.isHostOnly })
        #expect(Set(names(jar, "http://127.0.0.1:9090/")) == ["a", "b"], "cookies ignore the port")
        #expect(names(jar, "http://127.0.0.2/").isEmpty)
        set(jar, "http://[::1]/", "six=1")
        #expect(names(jar, "http://[::1]/") == ["six"])
    }

    @Test func pathsAndTheDefaultPath() {
        let jar = CookieJar()
        set(jar, "http://h.example/docs/guide/page.html", "dir=1", "root=1; Path=/", "exact=1; Path=/docs/guide/page.html")
        set(jar, "http://h.example/", "top=1")
        set(jar, "http://h.example/noslash", "noslash=1")
        #expect(jar.cookies.first { $0.name == "dir" }?.path == "/docs/guide")
        #expect(jar.cookies.first { $0.name == "top" }?.path == "/")
        #expect(jar.cookies.first { $0.name == "noslash" }?.path == "/")
        #expect(names(jar, "http://h.example/docs/guide/page.html") == ["exact", "dir", "root", "top", "noslash"],
                "longest path first, then oldest")
        #expect(Set(names(jar, "http://h.example/docs/guide/")) == ["dir", "root", "top", "noslash"])
        #expect(Set(names(jar, "http://h.example/docs/guide")) == ["dir", "root", "top", "noslash"])
        #expect(Set(names(jar, "http://h.example/docs/guidebook")) == ["root", "top", "noslash"], "not at a /")
        #expect(Set(names(jar, "http://h.example/docs")) == ["root", "top", "noslash"])
    }

    @Test func secureCookiesTravelOnlyOverHTTPSAndAreNeverSetOverHTTP() {
        let jar = CookieJar()
        set(jar, "http://example.com/", "fromhttp=1; Secure")
        #expect(jar.count == 0, "a Secure cookie set over http is ignored (RFC 6265bis)")
        set(jar, "https://example.com/", "s=1; Secure", "plain=1")
        #expect(Set(names(jar, "https://example.com/")) == ["s", "plain"])
        #expect(names(jar, "http://example.com/") == ["plain"])
        // Over http, a cookie of the same name cannot replace, shadow or delete the Secure one.
        set(jar, "http://example.com/", "s=evil", "s=gone; Max-Age=0")
        set(jar, "http://www.example.com/", "s=evil; Domain=example.com")
        #expect(jar.cookies.filter { $0.name == "s" }.map(\.value) == ["1"])
        set(jar, "https://example.com/", "s=2; Secure")
        #expect(jar.cookies.filter { $0.name == "s" }.map(\.value) == ["2"])
        // Once the Secure one is gone, the name is free again.
        set(jar, "https://example.com/", "s=gone; Secure; Max-Age=0")
        set(jar, "http://example.com/", "s=plain")
        #expect(jar.cookies.filter { $0.name == "s" }.map(\.value) == ["plain"])
    }

    @Test func cookiePrefixes() {
        let jar = CookieJar()
        set(jar, "https://example.com/a/b", "__Secure-no=1", "__Secure-yes=1; Secure", "__Host-path=1; Secure",
            "__Host-domain=1; Secure; Path=/; Domain=example.com", "__Host-yes=1; Secure; Path=/")
        #expect(Set(jar.cookies.map(\.name)) == ["__Secure-yes", "__Host-yes"])
    }

    @Test func httpOnlyIsKeptAndShown() throws {
        let jar = CookieJar()
        set(jar, "http://example.com/", "h=1; HttpOnly")
        let cookie = try #require(jar.cookies.first)
        #expect(cookie.isHTTPOnly)
        #expect(jar.cookieHeader(for: URL(string: "http://example.com/")!) == "h=1", "sent like any other")
    }

    @Test func expiresMaxAgeAndDeletion() throws {
        let jar = CookieJar()
        let now = Date()
        set(jar, "http://example.com/", "session=1", "future=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT",
            "both=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT; Max-Age=60", "past=1; Expires=Thu, 01 Jan 1970 00:00:01 GMT",
            "zero=1; Max-Age=0")
        let byName = Dictionary(uniqueKeysWithValues: jar.cookies.map { ($0.name, $0) })
        #expect(Set(byName.keys) == ["session", "future", "both"])
        #expect(byName["session"]?.isSessionCookie == true)
        let future = try #require(byName["future"]?.expiresAt)
        #expect(future <= now.addingTimeInterval(400 * 86_400 + 5), "capped at 400 days")
        let both = try #require(byName["both"]?.expiresAt)
        #expect(abs(both.timeIntervalSince(now) - 60) < 5, "Max-Age wins over Expires")
        set(jar, "http://example.com/", "future=x; Max-Age=-1", "session=x; Expires=Thu, 01 Jan 1970 00:00:01 GMT")
        #expect(jar.cookies.map(\.name) == ["both"], "an expired cookie deletes its namesake")
        jar.add(Cookie(name: "old", value: "1", domain: "example.com", expiresAt: now.addingTimeInterval(-1)))
        #expect(names(jar, "http://example.com/") == ["both"])
    }

    @Test func anExpiredCookieIsNeitherSentNorListed() {
        let jar = CookieJar()
        jar.add(Cookie(name: "soon", value: "1", domain: "example.com", expiresAt: Date().addingTimeInterval(0.2)))
        #expect(names(jar, "http://example.com/") == ["soon"])
        Thread.sleep(forTimeInterval: 0.3)
        #expect(names(jar, "http://example.com/").isEmpty)
        #expect(jar.cookies.isEmpty)
        #expect(jar.count == 0, "dropped as the look-up met it")
    }

    @Test func replacementByNameDomainAndPath() throws {
        let jar = CookieJar()
        set(jar, "http://www.example.com/", "a=1")
        let first = try #require(jar.cookies.first)
        set(jar, "http://www.example.com/", "a=2", "a=3; Path=/other", "a=4; Domain=example.com")
        #expect(jar.count == 3)
        let replaced = try #require(jar.cookies.first { $0.domain == "www.example.com" && $0.path == "/" })
        #expect(replaced.value == "2")
        #expect(replaced.createdAt == first.createdAt, "keeps the first one's creation date")
        #expect(jar.remove(Cookie.Key(name: "a", domain: "example.com", path: "/"))?.value == "4")
        jar.removeAll { $0.path == "/other" }
        #expect(jar.cookies.map(\.value) == ["2"])
        jar.removeAll()
        #expect(jar.count == 0)
    }

    @Test func secureURLsAndOtherSchemes() {
        let jar = CookieJar()
        jar.add(Cookie(name: "a", value: "1", domain: "example.com"))
        #expect(jar.cookies(for: URL(string: "ftp://example.com/")!).isEmpty)
        #expect(jar.cookies(for: URL(string: "data:text/plain,hi")!).isEmpty)
        #expect(Cookie(name: "a", value: "1", domain: ".Example.com", path: "relative").domain == "example.com")
        #expect(Cookie(name: "a", value: "1", domain: "x", path: "relative").path == "/")
    }
}
