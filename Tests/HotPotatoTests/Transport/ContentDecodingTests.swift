import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// The libcurl engine decodes content-coded bodies itself (``ContentDecoder``): gzip (several
/// members too), deflate (zlib-wrapped or raw), br, zstd. A stream that stops before its end —
/// though its framing is whole — is a truncated body and places no file, where libcurl's own
/// decoding took it for a whole one; a large body decodes piece by piece whatever the handler's
/// pace (libcurl's own stopped at 64 MB with "out of memory" while paused); a coding that cannot
/// be decoded is a malformed response; a caller that asks for a coding of its own gets the coded
/// bytes. The fault server's `/coded` serves the fixtures, cut or whole.
@Suite(.serialized) struct ContentDecodingTests {
    private static let fixtures: Result<CodedFixtures, any Error> = Result {
        try CodedFixtures.make(in: FileManager.default.temporaryDirectory.appendingPathComponent("hotpotato-coded-\(getpid())"))
    }

    private func coded(_ fault: FaultServer, _ fixtures: CodedFixtures, _ name: String, coding: String, cut: Int = 0) -> URL {
        var components = URLComponents(url: fault.url("/coded"), resolvingAgainstBaseURL: false)!
        components.queryItems = [
            URLQueryItem(name: "file", value: fixtures.path(name)), URLQueryItem(name: "coding", value: coding),
            URLQueryItem(name: "cut", value: String(cut)),
        ]
        return components.url!
    }

    static let codings: [(file: String, coding: String)] = [
        ("plain.gz", "gzip"), ("plain.zlib", "deflate"), ("plain.raw", "deflate"), ("plain.br", "br"), ("plain.zst", "zstd"),
        ("multi.gz", "gzip"),
    ]

    @Test func eachCodingDecodesWhole() async throws {
        try #require(Session.Engine.curl.isAvailable)
        let fixtures = try Self.fixtures.get()
        let fault = try await TestServers.fault()
        let session = testSession(engine: .curl, timeout: 20)
        for (file, coding) in Self.codings {
            let body = try await session.get(coded(fault, fixtures, file, coding: coding)).asData().content
            #expect(body == fixtures.plain, "\(file) as \(coding): \(body.count) bytes")
        }
        // A coded empty body, and an empty body that says it is coded, are empty.
        #expect(try await session.get(coded(fault, fixtures, "empty.gz", coding: "gzip")).asData().content.isEmpty)
        #expect(try await session.get(coded(fault, fixtures, "empty", coding: "gzip")).asData().content.isEmpty)
    }

    @Test func aStreamCutShortIsATruncatedBodyAndPlacesNoFile() async throws {
        try #require(Session.Engine.curl.isAvailable)
        let fixtures = try Self.fixtures.get()
        let fault = try await TestServers.fault()
        let session = testSession(engine: .curl, timeout: 20)
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("kept.txt")
        try Data("the file before".utf8).write(to: destination)
        // Half the coded bytes; and, for gzip, all but its trailer (the data whole, its check missing).
        var cases = Self.codings.map { (file: $0.file, coding: $0.coding, cut: (try? Data(contentsOf: URL(fileURLWithPath: fixtures.path($0.file))).count / 2) ?? 1) }
        cases.append((file: "plain.gz", coding: "gzip", cut: 8))
        for item in cases {
            let url = coded(fault, fixtures, item.file, coding: item.coding, cut: item.cut)
            let error = await expectFailure { try await session.get(url).retry(.never).asData().content }
            #expect(error?.code == .truncatedBody, "\(item): \(String(describing: error))")
            let failed = await expectFailure {
                try await session.get(url).retry(.never).downloadToFile(at: destination, existingFilePolicy: .replace).content
            }
            #expect(failed?.code == .truncatedBody, "\(item)")
            #expect(try Data(contentsOf: destination) == Data("the file before".utf8), "\(item)")
        }
    }

    @Test func aLargeBodyDecodesPieceByPiece() async throws {
        try #require(Session.Engine.curl.isAvailable)
        let fixtures = try Self.fixtures.get()
        let fault = try await TestServers.fault()
        let session = testSession(engine: .curl, timeout: 60)
        for (file, coding) in [("big.br", "br"), ("big.zst", "zstd")] {
            let body = try await session.get(coded(fault, fixtures, file, coding: coding)).asData(maximumBodySize: 1 << 30).content
            #expect(body.count == CodedFixtures.bigSize, "\(file)")
            #expect(body.allSatisfy { $0 == UInt8(ascii: " ") }, "\(file)")
            // Over a limit, the limit's error, not a transport one.
            let error = await expectFailure { try await session.get(coded(fault, fixtures, file, coding: coding)).asString().content }
            #expect(error?.code == .bodyTooLarge, "\(file): \(String(describing: error))")
        }
    }

    @Test func whatCannotBeDecodedIsMalformedAndACallersOwnCodingIsKept() async throws {
        try #require(Session.Engine.curl.isAvailable)
        let fixtures = try Self.fixtures.get()
        let fault = try await TestServers.fault()
        let session = testSession(engine: .curl, timeout: 20)
        for (file, coding) in [("plain.gz", "x-unknown"), ("plain", "gzip"), ("plain.gz", "gzip, gzip, gzip, gzip, gzip, gzip"), ("plain.br", "gzip")] {
            let error = await expectFailure { try await session.get(coded(fault, fixtures, file, coding: coding)).retry(.never).asData().content }
            #expect(error?.code == .malformedResponse, "\(file) as \(coding): \(String(describing: error))")
        }
        let own = try await session.get(coded(fault, fixtures, "plain.gz", coding: "gzip")).header("Accept-Encoding", "gzip").asData().content
        #expect(own == (try Data(contentsOf: URL(fileURLWithPath: fixtures.path("plain.gz")))))
        // What the engine asks for.
        let asked = try await session.get(fault.url("/request-headers")).as([String: String].self).content
        #expect(asked["accept-encoding"] == "gzip, deflate, br, zstd")
    }
}
