import Foundation
import Testing
@testable import HotPotato

/// A ``CookieJar`` never keeps more than its ``CookieJar/Limits``, whatever servers send, and
/// stays usable from many threads at once.
@Suite struct CookieJarLimitsTests {
    private func set(_ jar: CookieJar, _ url: String, _ setCookies: [String]) {
        jar.storeCookies(from: HTTPHeaders(setCookies.map { ("Set-Cookie", $0) }), for: URL(string: url)!)
    }

    @Test func aCookieOverTheSizeLimitIsIgnored() {
        let jar = CookieJar()
        let name = "n"
        set(jar, "http://example.com/", [
            name + "=" + String(repeating: "v", count: 4096 - name.count),
            "big=" + String(repeating: "v", count: 4096),
        ])
        #expect(jar.cookies.map(\.name) == [name], "4096 bytes of name and value are kept, 4097 are not")
        #expect(!jar.add(Cookie(name: "huge", value: String(repeating: "x", count: 5000), domain: "example.com")))
        let small = CookieJar(limits: .init(maximumCookieSize: 10))
        #expect(!small.add(Cookie(name: "abcdef", value: "ghijk", domain: "example.com")))
        #expect(small.add(Cookie(name: "abcde", value: "fghij", domain: "example.com")))
    }

    @Test func perDomainLimitDropsTheOldest() {
        let jar = CookieJar(limits: .init(maximumCookiesPerDomain: 3))
        set(jar, "http://example.com/", ["a=1", "b=1", "c=1"])
        set(jar, "http://example.com/", ["d=1"])
        #expect(jar.cookies.map(\.name) == ["b", "c", "d"])
        // Each domain has its own count: a subdomain's cookies do not push the parent's out.
        set(jar, "http://www.example.com/", ["w1=1", "w2=1", "w3=1", "w4=1"])
        #expect(jar.count == 6)
    }

    @Test func expiredCookiesMakeRoomFirst() {
        let jar = CookieJar(limits: .init(maximumCookiesPerDomain: 2))
        jar.add(Cookie(name: "keep", value: "1", domain: "example.com", createdAt: Date(timeIntervalSinceNow: -100)))
        jar.add(Cookie(name: "soon", value: "1", domain: "example.com", expiresAt: Date(timeIntervalSinceNow: 0.1)))
        Thread.sleep(forTimeInterval: 0.2)
        jar.add(Cookie(name: "new", value: "1", domain: "example.com"))
        #expect(jar.cookies.map(\.name) == ["keep", "new"])
    }

    @Test func totalLimitDropsTheOldestAnywhere() {
        let jar = CookieJar(limits: .init(maximumCookiesPerDomain: 10, maximumCookies: 4))
        for index in 0..<6 {
            jar.add(Cookie(name: "c\(index)", value: "1", domain: "host\(index).example", createdAt: Date(timeIntervalSinceNow: Double(index))))
        }
        #expect(jar.count == 4)
        #expect(Set(jar.cookies.map(\.name)) == ["c2", "c3", "c4", "c5"])
    }

    @Test func tenThousandSetCookieFieldsStayWithinTheLimits() {
        let jar = CookieJar()
        let fields = (0..<10_000).map { "c\($0)=\(String(repeating: "v", count: 100)); Path=/; Max-Age=3600" }
            + (0..<10_000).map { "d\($0)=1; Domain=example.com" }
        set(jar, "http://www.example.com/", fields)
        #expect(jar.count == 2 * jar.limits.maximumCookiesPerDomain, "180 for the host, 180 for its domain")
        #expect(jar.cookies(for: URL(string: "http://www.example.com/")!).count == 360)
        #expect(jar.cookies.contains { $0.name == "c9999" }, "the newest are kept")
        #expect(!jar.cookies.contains { $0.name == "c0" })
    }

    @Test func concurrentUseIsSafe() async {
        let jar = CookieJar(limits: .init(maximumCookiesPerDomain: 50, maximumCookies: 200))
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in 0..<300 {
                        let url = URL(string: "http://h\(index % 10).example.com/")!
                        jar.storeCookies(from: ["Set-Cookie": "w\(worker)i\(index)=1; Domain=example.com"], for: url)
                        _ = jar.cookieHeader(for: url)
                        if index % 50 == 0 { jar.removeExpired() }
                    }
                }
            }
        }
        #expect(jar.count <= 50)
        #expect(jar.count == jar.cookies.count)
    }
}
