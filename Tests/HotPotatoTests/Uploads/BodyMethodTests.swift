import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// A body given to a request is sent, whatever the method, or the call fails before anything is
/// sent; it is never dropped. `GET` sends its body as curl sends `-X GET -d …` (on both engines:
/// FoundationNetworking refuses a `GET` with a body, and is handed one anyway); `HEAD`, whose
/// response has no body and which no engine sends with one, fails with `.invalidRequest`.
@Suite struct BodyMethodTests {
    enum Kind: String, CaseIterable, Sendable {
        case bytes, file, form
    }

    @Test(arguments: allEngines, Kind.allCases)
    func aGetSendsItsBody(engine: Session.Engine, kind: Kind) async throws {
        let server = try await TestServers.retry()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let content = patternedData(count: 50_000)
        let file = scratch.file("body.bin")
        try content.write(to: file)
        let session = testSession(engine: engine)
        let path = "/echo/get-body-\(engine)-\(kind)-\(UUID().uuidString)"
        var request = session.get(server.url(path))
        var form = MultipartFormData()
        form.append(fileAt: file, name: "file")
        switch kind {
        case .bytes: request = request.body(content, contentType: "application/octet-stream")
        case .file: request = request.body(fileAt: file)
        case .form: request = request.body(multipart: form)
        }
        _ = try await request.asData().content
        let record = try #require(server.records(path).first)
        #expect(record.method == "GET")
        #expect(!record.chunked)
        #expect(record.contentLength == String(record.bodyLength))
        if kind == .form {
            #expect(Int64(record.bodyLength) == BodySegment.totalLength(try form.segments()))
            #expect(record.body.range(of: content) != nil)
        } else {
            #expect(sameBytes(record.body, content))
        }
    }

    /// A `GET` with an empty `Data` body has no body, as on both engines before.
    @Test(arguments: allEngines) func aGetWithEmptyBytesSendsNoBody(engine: Session.Engine) async throws {
        let server = try await TestServers.retry()
        let path = "/echo/get-empty-\(engine)-\(UUID().uuidString)"
        _ = try await testSession(engine: engine).get(server.url(path)).body(Data()).asData().content
        let record = try #require(server.records(path).first)
        #expect(record.method == "GET")
        #expect(record.contentLength == nil)
        #expect(record.bodyLength == 0)
    }

    @Test(arguments: allEngines, Kind.allCases)
    func aHeadWithABodyFailsBeforeSending(engine: Session.Engine, kind: Kind) async throws {
        let server = try await TestServers.retry()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("body.bin")
        try Data("body".utf8).write(to: file)
        let path = "/echo/head-body-\(engine)-\(kind)-\(UUID().uuidString)"
        var request = testSession(engine: engine).head(server.url(path))
        var form = MultipartFormData()
        form.append("value", name: "field")
        switch kind {
        case .bytes: request = request.body(Data("body".utf8))
        case .file: request = request.body(fileAt: file)
        case .form: request = request.body(multipart: form)
        }
        let error = await expectFailure { try await request.asData().content }
        #expect(error?.code == .invalidRequest, "\(String(describing: error))")
        #expect(error?.reason.contains("HEAD") == true)
        #expect(server.records(path).isEmpty, "nothing is sent")
    }

    /// A `Content-Length` or `Transfer-Encoding` of the caller's never frames the body: the
    /// engine announces the length of the bytes it sends.
    @Test(arguments: allEngines) func aCallersFramingHeadersAreNotSent(engine: Session.Engine) async throws {
        let server = try await TestServers.retry()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("body.bin")
        try patternedData(count: 1000).write(to: file)
        let path = "/echo/framing-\(engine)-\(UUID().uuidString)"
        _ = try await testSession(engine: engine).put(server.url(path)).body(fileAt: file)
            .header("Content-Length", "10").header("Transfer-Encoding", "identity").asData().content
        let record = try #require(server.records(path).first)
        #expect(record.contentLength == "1000")
        #expect(record.bodyLength == 1000)
        #expect(!record.chunked)
    }
}
