import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// `potato get -F …` and `-T FILE`: forms and uploads in curl's syntax, their errors and their
/// progress, through the built binary against the test servers.
@Suite struct PotatoUploadTests {
    @Test(.needsHTTPBin) func formFieldsFilesAndFileContents() async throws {
        let bin = try await TestServers.httpbin()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let photo = scratch.file("photo.bin")
        try patternedData(count: 100_000).base64EncodedData().write(to: photo)
        let note = scratch.file("note.txt")
        try Data("from a file".utf8).write(to: note)
        let outcome = try await PotatoProcess.run([
            "get", bin.url("/post").absoluteString, "--json", "-F", "name=spud", "-F", "photo=@\(photo.path);type=text/plain",
            "-F", "note=<\(note.path)", "--form-string", "literal=@not a file",
        ])
        #expect(outcome.status == 0, "\(outcome.error)")
        let echo = try JSON(parsing: outcome.output)
        #expect(echo["form.name"] == "spud")
        #expect(echo["form.note"] == "from a file")
        #expect(echo["form.literal"] == "@not a file")
        #expect(echo["files.photo"]?.stringValue == String(decoding: try Data(contentsOf: photo), as: UTF8.self))
        #expect(echo["headers.Content-Type"]?.stringValue?.hasPrefix("multipart/form-data; boundary=") == true)
    }

    /// The file name and type given after the file, quoted names included, are what is sent.
    @Test func fileNameAndTypeAttributes() async throws {
        let server = try await TestServers.retry()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("a;b.txt")
        try Data("semicolon".utf8).write(to: file)
        let path = "/echo/potato-form-\(UUID().uuidString)"
        let outcome = try await PotatoProcess.run([
            "get", server.url(path).absoluteString, "-F", "doc=@\"\(file.path)\";type=\"text/plain; charset=utf-8\";filename=shown.txt",
        ])
        #expect(outcome.status == 0, "\(outcome.error)")
        let record = try #require(server.records(path).first)
        #expect(record.method == "POST")
        let body = String(decoding: record.body, as: UTF8.self)
        #expect(body.contains("Content-Disposition: form-data; name=\"doc\"; filename=\"shown.txt\"\r\n"
            + "Content-Type: text/plain; charset=utf-8\r\n\r\nsemicolon\r\n"), "\(body)")
        #expect(record.contentLength == String(record.bodyLength))
    }

    @Test func uploadFileIsAPutOfItsBytesWithProgress() async throws {
        let server = try await TestServers.retry()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("upload.bin")
        let content = patternedData(count: 1 << 20)  // what the server keeps of a body
        try content.write(to: file)
        // A URL ending in / gets the file's name, as with curl.
        let directory = "/echo/potato-upload-\(UUID().uuidString)/"
        let outcome = try await PotatoProcess.run(["get", server.url(directory).absoluteString, "-T", file.path, "--progress", "bar"])
        #expect(outcome.status == 0, "\(outcome.error)")
        let record = try #require(server.records(directory + "upload.bin").first)
        #expect(record.method == "PUT")
        #expect(sameBytes(record.body, content))
        #expect(record.contentLength == String(content.count))
        // The bar is drawn at the first update and at the last, which is forced.
        #expect(outcome.error.contains("↑100% ["), "\(outcome.error)")
        #expect(outcome.error.contains("1.00 MiB / 1.00 MiB"), "\(outcome.error)")
    }

    @Test func uploadFromStandardInputIsChunked() async throws {
        let server = try await TestServers.retry()
        let path = "/echo/potato-stdin-\(UUID().uuidString)"
        // PotatoProcess gives the process /dev/null as standard input: an empty body.
        let outcome = try await PotatoProcess.run(["get", server.url(path).absoluteString, "-T", "-"])
        #expect(outcome.status == 0, "\(outcome.error)")
        #expect(server.records(path).first?.method == "PUT")
        #expect(server.records(path).first?.chunked == true)
        #expect(server.records(path).first?.bodyLength == 0)
    }

    @Test(arguments: [
        (["-F", "novalue"], "is not name=value"), (["-F", "=value"], "no field name"), (["-F", "file=@"], "names no file"),
        (["-F", "file=@\"unclosed"], "not closed"), (["-F", "file=@a.txt;size=1"], "unknown ;size="),
        (["-F", "file=@a.txt;type="], "needs a value"), (["-F", "file=@a.txt;junk"], "is not ;type="),
        (["-F", "a=b", "-d", "x"], "choose one of -d, --data-file, -F and -T"), (["-T", "a", "-F", "a=b"], "choose one of"),
        (["-T", ""], "needs a file"),
    ])
    func badFormSyntaxIsAUsageError(arguments: [String], message: String) async throws {
        let outcome = try await PotatoProcess.run(["get", "http://127.0.0.1:1/"] + arguments)
        #expect(outcome.status == 2)
        #expect(outcome.error.contains(message), "\(outcome.error)")
    }

    @Test(arguments: [["-F", "file=@/nonexistent/a.txt"], ["-F", "note=</nonexistent/a.txt"], ["-T", "/nonexistent/a.txt"]])
    func anUnreadableFileToSendExitsWith21(arguments: [String]) async throws {
        let server = try await TestServers.retry()
        let path = "/echo/potato-unreadable-\(UUID().uuidString)"
        let outcome = try await PotatoProcess.run(["get", server.url(path).absoluteString] + arguments)
        #expect(outcome.status == 21, "\(outcome.error)")
        #expect(outcome.error.contains("/nonexistent/a.txt"), "\(outcome.error)")
        #expect(server.records(path).isEmpty, "nothing is sent")
    }
}
