import Testing
@testable import HotPotato

@Suite struct MediaTypeTests {
    @Test func parsesTypeSubtypeAndParameters() throws {
        let type = try #require(MediaType(parsing: "Application/JSON ; charset=UTF-8;  q=\"a \\\"b\\\"\""))
        #expect(type.type == "application")
        #expect(type.subtype == "json")
        #expect(type.charset == "utf-8")
        #expect(type.parameter("CHARSET") == "UTF-8")
        #expect(type.parameter("q") == "a \"b\"")
        #expect(type.description == "application/json; charset=UTF-8; q=\"a \\\"b\\\"\"")
    }

    @Test(arguments: [
        "", "json", "application/", "/json", "application/json/x", "appl ication/json",
        "application/json; charset", "application/json; =utf-8", "application/json; charset=\"utf-8",
        "application/json charset=utf-8", "text/plain; a=b c",
    ])
    func rejectsMalformed(_ text: String) {
        #expect(MediaType(parsing: text) == nil)
    }

    @Test func toleratesEmptyParameters() {
        #expect(MediaType(parsing: "text/plain;")?.essence == "text/plain")
        #expect(MediaType(parsing: "text/plain;;charset=utf-8")?.charset == "utf-8")
        #expect(MediaType(parsing: "  text/plain  ")?.essence == "text/plain")
    }

    @Test(arguments: [
        ("*/*", "image/png", true),
        ("*/*", "application/problem+json", true),
        ("text/*", "text/html", true),
        ("text/*", "TEXT/PLAIN; charset=utf-8", true),
        ("text/*", "application/json", false),
        ("application/json", "application/json", true),
        ("APPLICATION/JSON", "application/json; charset=utf-8", true),
        ("application/json; charset=latin1", "application/json; charset=utf-8", true),
        ("application/json", "application/problem+json", true),
        ("application/json", "application/vnd.api+json", true),
        ("application/json", "text/json", false),
        ("application/json", "application/jsonx", false),
        ("application/*+json", "application/problem+json", true),
        ("application/*+json", "application/json", false),
        ("application/*+json", "application/xml", false),
        ("application/*+json", "text/x+json", false),
        ("application/xml", "application/atom+xml", true),
        ("image/png", "image/jpeg", false),
    ])
    func matching(pattern: String, candidate: String, expected: Bool) throws {
        let candidateType = try #require(MediaType(parsing: candidate))
        #expect(MediaType(stringLiteral: pattern).matches(candidateType) == expected)
    }

    @Test func malformedLiteralMatchesNothing() throws {
        let broken: MediaType = "not a type"
        #expect(!broken.matches(try #require(MediaType(parsing: "text/plain"))))
        #expect(!broken.matches(.any))
    }

    @Test func suffix() {
        #expect(MediaType(parsing: "application/problem+json")?.suffix == "json")
        #expect(MediaType(parsing: "application/json")?.suffix == nil)
        #expect(MediaType(parsing: "application/x+")?.suffix == nil)
    }
}
