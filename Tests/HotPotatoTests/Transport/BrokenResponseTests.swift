import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Responses that break HTTP in ways libcurl reports as something else — a failed read, an
/// unsupported protocol, no memory, a bad content coding — fail on the libcurl engine with
/// ``HotPotatoError/Code/malformedResponse`` (not a lost connection that a retry policy sends
/// again, nor a bad URL), and potato exits 20. A chunked body with a `Content-Length` too is read
/// by its chunks (RFC 9112 §6.3), as libcurl frames it.
@Suite struct BrokenResponseTests {
    /// The fault server's `/verbatim` with `head` (CRLF-separated lines) and `extra` query items.
    private func verbatim(_ fault: FaultServer, head: [String], body: String = "", _ extra: [URLQueryItem] = []) -> URL {
        var components = URLComponents(url: fault.url("/verbatim"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "head", value: head.joined(separator: "\r\n")), URLQueryItem(name: "body", value: body)] + extra
        return components.url!
    }

    private static let broken: [(name: String, head: [String], body: String, extra: [URLQueryItem])] = [
        ("a status code that is not a number", ["HTTP/1.1 abc OK", "Content-Length: 2"], "hi", []),
        ("a status code of four digits", ["HTTP/1.1 2000 OK", "Content-Length: 2"], "hi", []),
        ("a status code of two digits", ["HTTP/1.1 99 X", "Content-Length: 2"], "hi", []),
        ("no status line (HTTP/0.9)", ["hello world"], "", []),
        ("a chunk size that is not hexadecimal", ["HTTP/1.1 200 OK", "Transfer-Encoding: chunked"], "zz\r\nhi\r\n0\r\n\r\n", []),
        ("a chunk size beyond 64 bits", ["HTTP/1.1 200 OK", "Transfer-Encoding: chunked"], "ffffffffffffffffffff\r\nhi\r\n0\r\n\r\n", []),
        ("a header line of 200 KB", ["HTTP/1.1 200 OK", "Content-Length: 2"], "hi",
         [URLQueryItem(name: "padLines", value: "1"), URLQueryItem(name: "padLength", value: "200000")]),
        ("a head of 400 KB", ["HTTP/1.1 200 OK", "Content-Length: 2"], "hi",
         [URLQueryItem(name: "padLines", value: "400"), URLQueryItem(name: "padLength", value: "1000")]),
        ("a gzip body that is not gzip", ["HTTP/1.1 200 OK", "Content-Encoding: gzip", "Content-Length: 25"], "this is not gzip at all!!", []),
    ]

    @Test(arguments: broken.indices) func aResponseThatBreaksHTTPIsMalformed(index: Int) async throws {
        try #require(Session.Engine.curl.isAvailable)
        let fault = try await TestServers.fault()
        let item = Self.broken[index]
        let error = await expectFailure {
            try await testSession(engine: .curl, timeout: 20).get(verbatim(fault, head: item.head, body: item.body, item.extra))
                .retry(RetryPolicy(maximumAttempts: 3, initialDelay: 0.01)).asData().content
        }
        // Under a policy that retries lost connections: a retry would not mend this.
        #expect(error?.code == .malformedResponse, "\(item.name): \(String(describing: error))")
        #expect(error.map { !RetryPolicy().isRetryable($0) } == true)
    }

    @Test func aChunkedBodyWithAContentLengthIsReadByItsChunks() async throws {
        try #require(Session.Engine.curl.isAvailable)
        let fault = try await TestServers.fault()
        let url = verbatim(fault, head: ["HTTP/1.1 200 OK", "Content-Length: 100", "Transfer-Encoding: chunked"], body: "2\r\nhi\r\n0\r\n\r\n")
        let response = try await testSession(engine: .curl, timeout: 20).get(url).asString().response()
        #expect(response.content == "hi")
        #expect(response.head.contentLength == nil)
        #expect(!response.head.hasMalformedContentLength)
    }

    /// A connection that closes inside the head — after the status line, or within a field — is
    /// no response: libcurl ends such a transfer as a success (a `200` with no body), which
    /// would replace a file with nothing. It is a lost connection, and the file is untouched.
    @Test(arguments: [["HTTP/1.1 200 OK\r\n"], ["HTTP/1.1 200 OK", "Content-Type: text/pl"], ["HTTP/1.1 200 OK", "Content-Length: 0\r\n"]])
    func aHeadCutShortIsALostConnection(head: [String]) async throws {
        try #require(Session.Engine.curl.isAvailable)
        let fault = try await TestServers.fault()
        let url = verbatim(fault, head: head, body: "", [URLQueryItem(name: "cut", value: "1")])
        let session = testSession(engine: .curl, timeout: 20)
        let error = await expectFailure { try await session.get(url).retry(.never).asData().content }
        #expect(error?.code == .connectionLost, "\(head): \(String(describing: error))")

        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("kept.txt")
        try Data("the file before".utf8).write(to: destination)
        let failed = await expectFailure {
            try await session.get(url).retry(.never).downloadToFile(at: destination, existingFilePolicy: .replace).content
        }
        #expect(failed?.code == .connectionLost)
        #expect(try Data(contentsOf: destination) == Data("the file before".utf8))
    }

    @Test func potatoExits20() async throws {
        try #require(Session.Engine.curl.isAvailable)
        let fault = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let url = verbatim(fault, head: ["HTTP/1.1 200 OK", "Transfer-Encoding: chunked"], body: "zz\r\nhi\r\n0\r\n\r\n")
        let outcome = try await PotatoProcess.run(["get", url.absoluteString, "-o", scratch.file("out").path, "--engine", "curl"])
        #expect(outcome.status == 20, "\(outcome.error)")
        #expect(try scratch.entries().isEmpty)
    }
}
