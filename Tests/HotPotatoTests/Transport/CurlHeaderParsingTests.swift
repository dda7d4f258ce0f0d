import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// The curl engine parses header lines byte by byte: a field's name and value lose the spaces and
/// tabs around them (and nothing else), a folded continuation joins the field before it with one
/// space, an empty value stays empty, and values are decoded as UTF-8.
@Suite struct CurlHeaderParsingTests {
    @Test func fieldsAsTheServerSentThem() async throws {
        let server = try await TestServers.fault()
        let url = HostileResumeTests.raw(server, status: 200, headers: [
            "Content-Length: 2",
            "X-Padded: \t value with  spaces \t",
            "X-Folded: first",
            " \t second part ",
            "X-Empty:",
            "x-lower-Case:kept",
            "X-Utf8: café ✓",
            "X-NBSP: \u{A0}kept\u{A0}",
        ], body: "ok")
        let response = try await testSession(engine: .curl).get(url).asData().response()
        #expect(response.content == Data("ok".utf8))
        let headers = response.headers
        #expect(headers["X-Padded"] == "value with  spaces")
        #expect(headers["X-Folded"] == "first second part")
        #expect(headers["X-Empty"] == "")
        #expect(headers.fields.contains(HTTPHeaders.Field(name: "x-lower-Case", value: "kept")))
        #expect(headers["X-Utf8"] == "café ✓")
        // Not optional whitespace: kept, as RFC 9110 has it.
        #expect(headers["X-NBSP"] == "\u{A0}kept\u{A0}")
        let names = headers.fields.map(\.name)
        #expect(Array(names.suffix(6)) == ["X-Padded", "X-Folded", "X-Empty", "x-lower-Case", "X-Utf8", "X-NBSP"])
    }
}
