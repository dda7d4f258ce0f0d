import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// How a form is encoded: framing, escaping, boundaries, content types, lengths and files.
@Suite struct MultipartFormDataTests {
    /// The whole body of `form`, read as an engine reads it.
    static func body(of form: MultipartFormData) throws -> Data {
        let reader = SegmentedBodyReader(try form.segments())
        defer { reader.close() }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 5)
        while true {
            let result = buffer.withUnsafeMutableBytes { reader.read(into: $0, wake: {}) }
            switch result {
            case .bytes(let count): data.append(contentsOf: buffer[..<count])
            case .end: return data
            case .failure(let error): throw error
            case .wouldBlock: Issue.record("a replayable body never waits"); return data
            }
        }
    }

    @Test func framesFieldsBytesAndFilesExactly() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("photo.png")
        try Data("PNG bytes".utf8).write(to: file)
        var form = MultipartFormData(boundary: "BOUNDARY")
        form.append("spud", name: "name")
        form.append(Data([0, 1, 2]), name: "raw")
        form.append(Data("text".utf8), name: "note", fileName: "note.txt", contentType: "text/plain; charset=utf-8")
        form.append(fileAt: file, name: "photo")
        let expected = "--BOUNDARY\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nspud\r\n"
            + "--BOUNDARY\r\nContent-Disposition: form-data; name=\"raw\"\r\n\r\n\u{0}\u{1}\u{2}\r\n"
            + "--BOUNDARY\r\nContent-Disposition: form-data; name=\"note\"; filename=\"note.txt\"\r\n"
            + "Content-Type: text/plain; charset=utf-8\r\n\r\ntext\r\n"
            + "--BOUNDARY\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"photo.png\"\r\n"
            + "Content-Type: image/png\r\n\r\nPNG bytes\r\n--BOUNDARY--\r\n"
        let body = try Self.body(of: form)
        #expect(String(decoding: body, as: UTF8.self) == expected)
        #expect(BodySegment.totalLength(try form.segments()) == Int64(body.count))
        #expect(form.contentType == "multipart/form-data; boundary=BOUNDARY")
    }

    @Test func anEmptyFormIsTheClosingBoundary() throws {
        let form = MultipartFormData(boundary: "B")
        #expect(form.isEmpty)
        #expect(try Self.body(of: form) == Data("--B--\r\n".utf8))
    }

    /// Names and file names are escaped as browsers escape them: no quote, CR or LF of theirs can
    /// end the header line or start another, whatever the attacker puts in them.
    @Test(arguments: [
        "evil\"; name=\"injected", "line\r\nContent-Type: text/html", "lf\nonly", "cr\ronly",
        "x\"\r\n\r\n--B--\r\n", "ünïcødé ✓ 🥔", "back\\slash\"",
    ])
    func hostileNamesCannotBreakTheFraming(name: String) throws {
        var form = MultipartFormData(boundary: "B")
        form.append(Data("content".utf8), name: name, fileName: name)
        let text = String(decoding: try Self.body(of: form), as: UTF8.self)
        let escaped = name.replacingOccurrences(of: "\"", with: "%22").replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
        #expect(text == "--B\r\nContent-Disposition: form-data; name=\"\(escaped)\"; filename=\"\(escaped)\"\r\n"
            + "Content-Type: application/octet-stream\r\n\r\ncontent\r\n--B--\r\n")
        #expect(text.components(separatedBy: "\r\n").count == 7, "one header line per header")
    }

    @Test func aBoundaryThatOccursInAPartIsReplaced() throws {
        var form = MultipartFormData(boundary: "spud")
        form.append("a value with spud in it", name: "first")
        #expect(form.boundary != "spud")
        #expect(form.boundary.hasPrefix("HotPotato-"))
        let drawn = form.boundary
        form.append(Data("contains \(drawn)".utf8), name: "second")
        #expect(form.boundary != drawn)
        let body = String(decoding: try Self.body(of: form), as: UTF8.self)
        #expect(body.components(separatedBy: "--\(form.boundary)").count == 4, "two parts and the end")
    }

    @Test func randomBoundariesDiffer() {
        let boundaries = Set((0..<100).map { _ in MultipartFormData().boundary })
        #expect(boundaries.count == 100)
        #expect(boundaries.allSatisfy { $0.count == 42 && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" } })
    }

    @Test func aControlCharacterInAContentTypeIsAProblem() throws {
        var form = MultipartFormData()
        form.append(Data(), name: "file", fileName: "a.txt", contentType: "text/plain\r\nX-Injected: 1")
        #expect(form.problem?.code == .invalidRequest)
        #expect(throws: HotPotatoError.self) { _ = try form.segments() }
        let session = Session(engine: .urlSession)
        let description = session.post("http://127.0.0.1:1/").body(multipart: form).cURLDescription()
        #expect(description.hasPrefix("# "))
    }

    @Test(arguments: [("a.JPG", "image/jpeg"), ("b.txt", "text/plain"), ("c.json", "application/json"), ("d", "application/octet-stream"),
                      ("e.unknown", "application/octet-stream"), ("f.tar.gz", "application/gzip")])
    func fileTypesAreGuessedFromTheirName(name: String, type: String) {
        #expect(MultipartFormData.contentType(forFileName: name) == type)
    }

    /// A file is read to the length measured when the request was sent: one that has grown is
    /// cut there, one that has shrunk fails rather than send fewer bytes than announced.
    @Test func aFileIsReadToItsMeasuredLength() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("changing.bin")
        try Data(repeating: 7, count: 100).write(to: file)
        let grown = SegmentedBodyReader([.file(file, length: 60)])
        var buffer = [UInt8](repeating: 0, count: 1000)
        let first = buffer.withUnsafeMutableBytes { grown.read(into: $0, wake: {}) }
        guard case .bytes(60) = first else { Issue.record("read \(first)"); return }
        guard case .end = buffer.withUnsafeMutableBytes({ grown.read(into: $0, wake: {}) }) else { Issue.record("not the end"); return }
        let shrunk = SegmentedBodyReader([.file(file, length: 150)])
        _ = buffer.withUnsafeMutableBytes { shrunk.read(into: $0, wake: {}) }
        guard case .failure(let error) = buffer.withUnsafeMutableBytes({ shrunk.read(into: $0, wake: {}) }) else {
            Issue.record("a shrunk file did not fail")
            return
        }
        #expect(error.code == .bodyFileChanged)
        #expect(error.path == file.path)
        #expect(error.limit == 150)
        #expect(error.byteCount == 100)
        #expect(openDescriptors(under: scratch.url).isEmpty)
    }

    @Test func filesAreMeasuredAndCheckedWhenSent() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        var form = MultipartFormData(boundary: "B")
        form.append(fileAt: scratch.file("missing.txt"), name: "file")
        do {
            _ = try form.segments()
            Issue.record("a missing file was measured")
        } catch {
            #expect(error.code == .invalidRequest)
            #expect(error.path == scratch.file("missing.txt").path)
        }
        var directory = MultipartFormData(boundary: "B")
        directory.append(fileAt: scratch.url, name: "file")
        #expect(throws: HotPotatoError.self) { _ = try directory.segments() }
        #expect(openDescriptors(under: scratch.url).isEmpty)
    }
}

/// The WHATWG URL standard's `application/x-www-form-urlencoded` serializer.
@Suite struct FormURLEncodingTests {
    @Test func encodesAsTheURLStandardSays() {
        let encoded = FormURLEncoding.encode([
            ("a b", "c+d"), ("é", "~*-._"), ("", ""), ("x&y=z", "100%"), ("🥔", "\r\n"), ("AZaz09", "!'()"),
        ])
        #expect(String(decoding: encoded, as: UTF8.self)
            == "a+b=c%2Bd&%C3%A9=%7E*-._&=&x%26y%3Dz=100%25&%F0%9F%A5%94=%0D%0A&AZaz09=%21%27%28%29")
    }

    @Test func anEmptyListIsAnEmptyBody() {
        #expect(FormURLEncoding.encode([(String, String)]()).isEmpty)
    }
}

/// How a request with a form or a stream reads as a curl command line.
@Suite struct UploadCURLDescriptionTests {
    @Test func aFormReadsAsCurlsFormOptions() {
        var form = MultipartFormData()
        form.append("spud", name: "name")
        form.append(fileAt: URL(fileURLWithPath: "/tmp/photo.png"), name: "photo", fileName: "me \"1\".png")
        form.append(Data([0xFF]), name: "raw")
        let line = Session(engine: .urlSession).post("https://example.com/upload").body(multipart: form).cURLDescription()
        #expect(line.contains("--form-string name=spud"), "\(line)")
        #expect(line.contains(#"-F 'photo=@"/tmp/photo.png";type=image/png;filename="me \"1\".png"'"#), "\(line)")
        #expect(line.hasSuffix("# parts of bytes left out: raw"), "\(line)")
        #expect(!line.lowercased().contains("content-type"), "curl sets the multipart type and boundary itself: \(line)")
    }

    @Test func aStreamReadsAsStandardInput() {
        let line = Session(engine: .urlSession).put("https://example.com/upload")
            .body(stream: InputStream(data: Data()), length: 12).cURLDescription()
        #expect(line.contains("-X PUT --data-binary @-"), "\(line)")
        #expect(line.hasSuffix("# the body streamed from an InputStream, 12 bytes on standard input"), "\(line)")
    }
}
