import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Uploads against httpbin, which parses what it gets: multipart forms with fields, bytes and
/// files, compared byte for byte; urlencoded forms with awkward characters; streamed bodies.
@Suite(.needsHTTPBin) struct HTTPBinUploadTests {
    struct Echo: Decodable, Sendable {
        let form: [String: String]
        let files: [String: String]
        let data: String
        let headers: [String: String]
    }

    @Test(arguments: allEngines) func multipartFieldsBytesAndFiles(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let bin = try await TestServers.httpbin()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let text = scratch.file("notes.txt")
        let textContent = String(repeating: "line of text, ünïcødé and all\r\n", count: 5_000)
        try Data(textContent.utf8).write(to: text)
        let empty = scratch.file("empty.txt")
        try Data().write(to: empty)

        var form = MultipartFormData()
        form.append("spud", name: "name")
        form.append("a \"quoted\" value\r\nwith a line break", name: "awkward")
        form.append(Data("bytes as a file".utf8), name: "blob", fileName: "blob.txt", contentType: "text/plain")
        form.append(fileAt: text, name: "notes")
        form.append(fileAt: empty, name: "nothing")
        let echo = try await session.post(bin.url("/post")).body(multipart: form).as(Echo.self).content
        #expect(echo.form["name"] == "spud")
        #expect(echo.form["awkward"] == "a \"quoted\" value\r\nwith a line break")
        #expect(echo.files["blob"] == "bytes as a file")
        #expect(echo.files["notes"] == textContent)
        #expect(echo.files["nothing"] == "")
        #expect(echo.headers["Content-Type"] == form.contentType)
        let segments = try form.segments()
        #expect(echo.headers["Content-Length"] == BodySegment.totalLength(segments).map(String.init), "\(echo.headers)")
        #expect(echo.headers["Transfer-Encoding"] == nil)
    }

    @Test(arguments: allEngines) func urlencodedRoundTripWithAwkwardCharacters(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let bin = try await TestServers.httpbin()
        let pairs: [(name: String, value: String)] = [
            ("plain", "value"), ("spaces and +plus", "a b+c"), ("amp&equals=", "x=1&y=2"), ("unicode ✓", "grüße, 日本, 🥔"),
            ("reserved", "*-._~!'()%;/?:@$,#[]"), ("empty", ""), ("line", "one\r\ntwo"),
        ]
        let echo = try await session.post(bin.url("/post")).body(form: pairs).as(Echo.self).content
        for pair in pairs {
            #expect(echo.form[pair.name] == pair.value, "\(pair.name)")
        }
        #expect(echo.headers["Content-Type"] == "application/x-www-form-urlencoded")
    }
}

extension HTTPBinUploadTests {
    /// A form of 3 MiB is streamed from disk with its length, and sent again whole on a `307`.
    @Test(arguments: allEngines) func aLargeFormFollowsARedirectWithItsLength(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let bin = try await TestServers.httpbin()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("large.txt")
        let content = String(repeating: "0123456789abcdef", count: 3 << 16)  // 3 MiB of text
        try Data(content.utf8).write(to: file)
        var form = MultipartFormData()
        form.append("large", name: "name")
        form.append(fileAt: file, name: "large")
        let echo = try await session.post(bin.url("/redirect-to")).query("url", bin.url("/post").absoluteString)
            .query("status_code", "307").body(multipart: form).as(Echo.self).content
        #expect(echo.form["name"] == "large")
        #expect(echo.files["large"] == content)
        #expect(echo.headers["Content-Length"] == BodySegment.totalLength(try form.segments()).map(String.init))
    }

    /// A hostile file name — quotes, CR and LF meant to end the header and forge a part — is sent
    /// escaped: the server sees one file, under its field, with its content, and nothing else.
    @Test(arguments: allEngines) func aHostileFileNameCannotForgeAPart(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let bin = try await TestServers.httpbin()
        var form = MultipartFormData()
        let hostile = "evil.txt\"\r\nContent-Type: text/html\r\n\r\nforged\r\n--\(form.boundary)\r\n"
            + "Content-Disposition: form-data; name=\"injected\"\r\n\r\nINJECTED"
        form.append(Data("the real content".utf8), name: "upload", fileName: hostile, contentType: "text/plain")
        form.append("kept", name: "after")
        let echo = try await session.post(bin.url("/post")).body(multipart: form).as(Echo.self).content
        #expect(echo.files == ["upload": "the real content"])
        #expect(echo.form == ["after": "kept"])
    }
}
