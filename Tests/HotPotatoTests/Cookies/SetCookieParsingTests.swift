import Foundation
import Testing
@testable import HotPotato

/// `Set-Cookie` as RFC 6265 section 5.2 parses it — browsers' leniency, not the grammar of
/// section 4 — and the cookie-date algorithm of section 5.1.1.
@Suite struct SetCookieParsingTests {
    private func parse(_ text: String) -> SetCookie? { SetCookie(Substring(text)) }

    private static func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))!
    }

    @Test func nameValueAndEveryAttribute() throws {
        let cookie = try #require(parse(
            " sid = a b c ;Path=/app; DOMAIN=.Example.COM ;secure; HttpOnly; Max-Age=60; Expires=Wed, 21 Oct 2037 07:28:00 GMT; SameSite=lax; Priority=High"))
        #expect(cookie.name == "sid")
        #expect(cookie.value == "a b c")
        #expect(cookie.path == "/app")
        #expect(cookie.domain == "example.com")
        #expect(cookie.isSecure && cookie.isHTTPOnly)
        #expect(cookie.maxAge == 60)
        #expect(cookie.expires == Self.utc(2037, 10, 21, 7, 28, 0))
        #expect(cookie.sameSite == "Lax")
    }

    @Test func oddButAcceptedValues() throws {
        #expect(parse("a=")?.value == "")
        #expect(parse("a=\"quoted value\"")?.value == "\"quoted value\"")
        #expect(parse("a=b=c")?.value == "b=c")
        #expect(parse("a=1;;; ;secure")?.isSecure == true)
        #expect(parse("a=1; Path=relative")?.path == nil, "a path not starting with / is the default path")
        #expect(parse("a=1; Domain=")?.domain == nil, "an empty Domain is ignored")
        #expect(parse("a=1; Max-Age=abc")?.maxAge == nil)
        #expect(parse("a=1; Max-Age=-5")?.maxAge == -5)
        #expect(parse("a=1; Max-Age=99999999999999999999999")?.maxAge == Int64.max)
        #expect(parse("a=1; Expires=not a date")?.expires == nil)
        #expect(parse("a=1; Path=/x; Path=/y")?.path == "/y", "the last attribute of a name wins")
        #expect(parse("a=1; SameSite=sideways")?.sameSite == nil)
        let long = String(repeating: "p", count: 2000)
        #expect(parse("a=1; Path=/\(long)")?.path == nil, "an attribute value over 1024 bytes is ignored")
    }

    /// RFC 6265bis 5.6: a first part without `=`, or with an empty name, is a nameless cookie,
    /// as browsers keep it (RFC 6265 ignored it); nothing at all is no cookie.
    @Test func namelessCookies() throws {
        let bare = try #require(parse("novalue; Path=/"))
        #expect(bare.name == "" && bare.value == "novalue" && bare.path == "/")
        let leading = try #require(parse("  =value "))
        #expect(leading.name == "" && leading.value == "value")
        #expect(parse("=") == nil, "an empty name and value")
        #expect(parse(" ; Path=/") == nil)
        #expect(parse("=__Host-x; Secure; Path=/") == nil, "a nameless value posing as a prefixed cookie")
        #expect(parse("__secure-y; Secure") == nil)
        let cookie = Cookie(name: "", value: "abc", domain: "example.com")
        #expect(cookie.pair == "abc", "sent as its value alone")
    }

    @Test func rejectedLines() {
        #expect(parse("a=1\u{0}2") == nil, "a NUL")
        #expect(parse("a=1\r\nSet-Cookie: b=2") == nil, "a line break")
        #expect(parse("a=1\u{7F}") == nil)
        #expect(parse("a=1\t2")?.value == "1\t2", "a tab is allowed")
    }

    @Test(arguments: [
        ("Wed, 21 Oct 2037 07:28:00 GMT", utc(2037, 10, 21, 7, 28, 0)),
        ("Wednesday, 21-Oct-37 07:28:00 GMT", utc(2037, 10, 21, 7, 28, 0)),
        ("Wed Oct 21 07:28:00 2037", utc(2037, 10, 21, 7, 28, 0)),
        ("21 oct 2037 7:8:9", utc(2037, 10, 21, 7, 8, 9)),
        ("Thu, 01 Jan 70 00:00:01 GMT", utc(1970, 1, 1, 0, 0, 1)),
        ("Sat, 01-Jan-2000 08:00:00 GMT", utc(2000, 1, 1, 8, 0, 0)),
        ("Fri, 31 Dec 9999 23:59:59 GMT", utc(9999, 12, 31, 23, 59, 59)),
    ])
    func cookieDates(text: String, date: Date) {
        #expect(CookieDate.parse(text) == date)
    }

    @Test(arguments: ["", "Wed, 21 Oct 2037", "Wed, 32 Oct 2037 07:28:00 GMT", "Wed, 31 Feb 2037 07:28:00 GMT",
                      "Wed, 21 Foo 2037 07:28:00 GMT", "Wed, 21 Oct 2037 24:00:00 GMT", "Wed, 21 Oct 1600 07:28:00 GMT",
                      "Wed, 21 Oct 2037 07:60:00 GMT", "Wed, 21 Oct 12345 07:28:00 GMT"])
    func notCookieDates(text: String) {
        #expect(CookieDate.parse(text) == nil)
    }

    @Test func joinedFieldsAreSplitWhereACookieStarts() {
        // FoundationNetworking joins repeated fields with ", "; an Expires date has a comma of its own.
        let joined = "a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT; Path=/, b=2, c=3; Max-Age=5,d=x,y"
        #expect(SetCookie.split(joined) == ["a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT; Path=/", "b=2", "c=3; Max-Age=5", "d=x,y"])
        #expect(SetCookie.split("a=1") == ["a=1"])
        let headers = HTTPHeaders([("Set-Cookie", "a=1, b=2"), ("Content-Type", "text/plain"), ("set-cookie", "c=3")])
        #expect(SetCookie.values(in: headers).map(String.init) == ["a=1", "b=2", "c=3"])
    }

    /// Nameless cookies (RFC 6265bis) in FoundationNetworking's joined field: `x=1` then `abc`
    /// arrived as `x=1, abc`, and the jar kept `x` with the value `1, abc` on the URLSession
    /// engine. A comma without the join's space, or in a date, still cuts nothing.
    @Test func joinedNamelessCookiesAreSplit() {
        #expect(SetCookie.split("x=1, abc") == ["x=1", "abc"])
        #expect(SetCookie.split("x=1, =abc; Path=/") == ["x=1", "=abc; Path=/"])
        #expect(SetCookie.split("abc, =def") == ["abc", "=def"])
        #expect(SetCookie.split("session=s3cr3t; Path=/, tracking") == ["session=s3cr3t; Path=/", "tracking"])
        #expect(SetCookie.split("list=1,2,3") == ["list=1,2,3"], "no space: not FoundationNetworking's join")
        #expect(SetCookie.split("a=1; Expires=Wed, 21-Oct-2037; Path=/") == ["a=1; Expires=Wed, 21-Oct-2037; Path=/"])
        #expect(SetCookie.split("a=1; expires = Wednesday, 21 Oct 2037 07:28:00 GMT, b") ==
            ["a=1; expires = Wednesday, 21 Oct 2037 07:28:00 GMT", "b"])
    }

    @Test func splittingTenThousandJoinedCookiesIsLinear() {
        let joined = (0..<10_000).map { "c\($0)=\(String(repeating: "v", count: 40)); Path=/; Expires=Wed, 21 Oct 2037 07:28:00 GMT" }
            .joined(separator: ", ")
        let started = Date()
        let values = SetCookie.split(joined)
        #expect(values.count == 10_000)
        #expect(Date().timeIntervalSince(started) < 5, "a quadratic split of 1 MB takes minutes")
    }
}
