import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Resumable downloads against a server that lies: a `206` or `416` that does not continue the
/// partial file is never placed, on both engines, and whatever the server does, a placed file is
/// byte-identical to the resource or the call fails. The fault server's `/raw` sends exactly the
/// heads asked for, and bytes of `FaultServer.byte(at:)` from any offset, so a partial file of
/// the same pattern is a true prefix.
@Suite struct HostileResumeTests {
    /// `/raw` with `status`, the header lines, and `sent` pattern bytes from `from`.
    static func raw(_ server: FaultServer, status: Int, headers: [String], sent: Int = 0, from: Int = 0, body: String? = nil) -> URL {
        var components = URLComponents(url: server.url("/raw"), resolvingAgainstBaseURL: false)!
        var items = [URLQueryItem(name: "status", value: String(status))]
        items += headers.map { URLQueryItem(name: "h", value: $0) }
        items += [URLQueryItem(name: "sent", value: String(sent)), URLQueryItem(name: "from", value: String(from))]
        if let body { items.append(URLQueryItem(name: "body", value: body)) }
        components.queryItems = items
        return components.url!
    }

    /// Plants a partial file of the pattern's first `size` bytes, recorded for `url` with `etag`.
    static func plantPartial(for destination: URL, url: URL, size: Int, etag: String = "\"v1\"") throws {
        let partial = PartialDownload(destination: destination)
        try FaultServer.body(count: size).write(to: partial.dataURL)
        try partial.saveInfo(PartialDownload.Info(url: url.absoluteString, etag: etag))
    }

    static func download(_ url: URL, to destination: URL, engine: Session.Engine, resumable: Bool = true) async -> HotPotatoError? {
        await expectFailure {
            try await testSession(engine: engine).get(url).downloadToFile(at: destination, resumable: resumable).response()
        }
    }

    @Test(arguments: allEngines) func aRangeCutShortIsKeptNotPlaced(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("file.bin")
        // Close-delimited (no Content-Length): only the range's own length shows the cut.
        let url = Self.raw(server, status: 206, headers: ["ETag: \"v1\"", "Content-Range: bytes 300000-999999/1000000"],
                           sent: 350_000, from: 300_000)
        try Self.plantPartial(for: destination, url: url, size: 300_000)
        let error = await Self.download(url, to: destination, engine: engine)
        #expect(error?.code == .truncatedBody, "\(String(describing: error))")
        #expect(error?.limit == 700_000)
        #expect(!FileManager.default.fileExists(atPath: destination.path), "650 000 bytes of 1 000 000 are not the file")
        let partial = PartialDownload(destination: destination)
        #expect(try Data(contentsOf: partial.dataURL) == FaultServer.body(count: 650_000), "a true prefix, kept to resume")
        #expect(openDescriptors(under: scratch.url).isEmpty)
    }

    @Test(arguments: allEngines) func moreThanTheRangeIsRefusedAndDiscarded(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("file.bin")
        let url = Self.raw(server, status: 206, headers: ["ETag: \"v1\"", "Content-Range: bytes 300000-999999/1000000"],
                           sent: 705_000, from: 300_000)
        try Self.plantPartial(for: destination, url: url, size: 300_000)
        let error = await Self.download(url, to: destination, engine: engine)
        #expect(error?.code == .malformedResponse, "\(String(describing: error))")
        #expect(try scratch.entries().isEmpty, "nothing placed, the partial state discarded")
        #expect(openDescriptors(under: scratch.url).isEmpty)
    }

    @Test(arguments: allEngines, [
        "bytes 0-999999/1000000", "bytes 300000-899999/1000000", "bytes 300001-999999/1000000", "bytes 300000-999999/*",
        "bytes 300000-999999/2000000", "bytes */1000000", "nonsense",
    ])
    func aRangeThatDoesNotContinueThePartialIsDiscarded(engine: Session.Engine, contentRange: String) async throws {
        let server = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("file.bin")
        let url = Self.raw(server, status: 206, headers: ["ETag: \"v1\"", "Content-Range: \(contentRange)"], sent: 1000, from: 300_000)
        try Self.plantPartial(for: destination, url: url, size: 300_000)
        let error = await Self.download(url, to: destination, engine: engine)
        #expect(error?.code == .resumeMismatch, "\(String(describing: error))")
        #expect(try scratch.entries().isEmpty)
    }

    @Test(arguments: allEngines) func aContentLengthThatIsNotTheRangesIsAMismatch(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("file.bin")
        let url = Self.raw(server, status: 206, headers: [
            "ETag: \"v1\"", "Content-Range: bytes 1000-1999/2000", "Content-Length: 500",
        ], sent: 500, from: 1000)
        try Self.plantPartial(for: destination, url: url, size: 1000)
        let error = await Self.download(url, to: destination, engine: engine)
        #expect(error?.code == .resumeMismatch)
        #expect(try scratch.entries().isEmpty)
    }

    @Test(arguments: allEngines) func anEncoded206NeverAppends(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("file.bin")
        let url = Self.raw(server, status: 206, headers: [
            "ETag: \"v1\"", "Content-Range: bytes 1000-1999/2000", "Content-Encoding: gzip", "Content-Length: 0",
        ])
        try Self.plantPartial(for: destination, url: url, size: 1000)
        let error = await Self.download(url, to: destination, engine: engine)
        #expect(error?.code == .resumeMismatch, "\(String(describing: error))")
        #expect(try scratch.entries().isEmpty, "discarded: the next attempt starts over")
    }

    @Test(arguments: allEngines, [true, false])
    func anUnsolicited206IsNotAFile(engine: Session.Engine, resumable: Bool) async throws {
        let server = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("file.bin")
        let url = Self.raw(server, status: 206, headers: ["Content-Range: bytes 0-1/1000", "Content-Length: 2"], sent: 2)
        let error = await Self.download(url, to: destination, engine: engine, resumable: resumable)
        #expect(error?.code == .malformedResponse, "\(String(describing: error))")
        #expect(try scratch.entries().isEmpty)
        #expect(openDescriptors(under: scratch.url).isEmpty)
    }

    @Test(arguments: allEngines) func anUnsolicited206IsNotTheContentOfAnyHandler(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let url = Self.raw(server, status: 206, headers: [
            "Content-Range: bytes 3-6/10", "Content-Length: 4", "Content-Type: application/json",
        ], body: "[42]")
        let request = testSession(engine: engine).get(url)
        var errors = [await expectFailure { try await request.asData().content }]
        errors.append(await expectFailure { try await request.asString().content })
        errors.append(await expectFailure { try await request.asJSON().content })
        errors.append(await expectFailure { try await request.discardResponseContent().content })
        for error in errors {
            #expect(error?.code == .malformedResponse, "\(String(describing: error))")
        }
        // Asked for, a part is the content.
        let part = try await request.header("Range", "bytes=3-6").asJSON().content
        #expect(part == [42])
    }

    @Test(arguments: allEngines) func aCallersOwnRangeIsTheirs(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("part.bin")
        let url = Self.raw(server, status: 206, headers: ["Content-Range: bytes 0-9/1000", "Content-Length: 10"], sent: 10)
        let file = try await testSession(engine: engine).get(url).header("Range", "bytes=0-9").downloadToFile(at: destination).content
        #expect(try Data(contentsOf: file) == FaultServer.body(count: 10))
    }

    @Test(arguments: allEngines, ["bytes */5000", "bytes */2999", "bytes 0-2999/3000", ""])
    func a416ThatIsNotCompletionDiscardsThePartial(engine: Session.Engine, contentRange: String) async throws {
        let server = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("file.bin")
        let url = Self.raw(server, status: 416, headers: contentRange.isEmpty ? ["Content-Length: 0"] : ["Content-Range: \(contentRange)", "Content-Length: 0"])
        try Self.plantPartial(for: destination, url: url, size: 3000)
        let error = await Self.download(url, to: destination, engine: engine)
        #expect(error?.code == .resumeMismatch, "\(String(describing: error))")
        #expect(try scratch.entries().isEmpty, "the resource changed: the next attempt starts over")
    }

    @Test(arguments: allEngines) func a416IsCompletionOnlyForThePartialsSize(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("file.bin")
        let url = Self.raw(server, status: 416, headers: ["Content-Range: bytes */3000", "Content-Length: 0"])
        try Self.plantPartial(for: destination, url: url, size: 3000)
        let response = try await testSession(engine: engine).get(url).downloadToFile(at: destination, resumable: true).response()
        #expect(response.status == 416)
        #expect(try Data(contentsOf: destination) == FaultServer.body(count: 3000))
        #expect(try scratch.entries() == ["file.bin"])
    }

    /// A `416` that calls the partial file whole, when the response that began it declared a
    /// longer body, contradicts it: half a file is never placed as the whole.
    @Test(arguments: allEngines) func a416ShorterThanTheDeclaredLengthIsNotCompletion(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("file.bin")
        let url = Self.raw(server, status: 416, headers: ["Content-Range: bytes */3000", "Content-Length: 0"])
        let partial = PartialDownload(destination: destination)
        try FaultServer.body(count: 3000).write(to: partial.dataURL)
        try partial.saveInfo(PartialDownload.Info(url: url.absoluteString, etag: "\"v1\"", declaredLength: 6000))
        let error = await Self.download(url, to: destination, engine: engine)
        #expect(error?.code == .resumeMismatch, "\(String(describing: error))")
        #expect(try scratch.entries().isEmpty)
    }

    /// The same, end to end: a download cut at half its declared length, then a `416` that says
    /// the half is the whole.
    @Test(arguments: allEngines) func aServerThatCallsHalfTheBodyWholeIsCaught(engine: Session.Engine) async throws {
        let retry = try await TestServers.retry()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("file.bin")
        let url = retry.url("/download/half-\(UUID().uuidString)?size=100000&drops=50000&lie416=1")
        let session = testSession(engine: engine, timeout: 20)
        let first = await expectFailure { try await session.get(url).retry(.never).downloadToFile(at: destination, resumable: true).content }
        #expect(first?.code == .truncatedBody)
        let second = await expectFailure { try await session.get(url).retry(.never).downloadToFile(at: destination, resumable: true).content }
        #expect(second?.code == .resumeMismatch, "\(String(describing: second))")
        #expect(!FileManager.default.fileExists(atPath: destination.path), "half a file was placed as the whole")
    }

    @Test(arguments: allEngines) func a416NamingAnotherVersionIsNotCompletion(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("file.bin")
        let url = Self.raw(server, status: 416, headers: ["Content-Range: bytes */3000", "ETag: \"v2\"", "Content-Length: 0"])
        try Self.plantPartial(for: destination, url: url, size: 3000)  // recorded as "v1"
        let error = await Self.download(url, to: destination, engine: engine)
        #expect(error?.code == .resumeMismatch, "\(String(describing: error))")
        #expect(try scratch.entries().isEmpty, "the partial file is of another version: discarded")
    }

    @Test(arguments: allEngines) func a416AcceptedByTheCallerNeverPlacesThePartial(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("file.bin")
        let url = Self.raw(server, status: 416, headers: ["Content-Range: bytes */3000", "Content-Length: 13"], body: "not satisfied")
        try Self.plantPartial(for: destination, url: url, size: 3000)
        let file = try await testSession(engine: engine).get(url).acceptingAnyStatus()
            .downloadToFile(at: destination, resumable: true).content
        #expect(try String(contentsOf: file, encoding: .utf8) == "not satisfied", "the 416's own body, as asked")
        #expect(PartialDownload(destination: destination).dataSize() == 3000, "the partial file is left as it was")
    }

    @Test(arguments: allEngines) func anHonestContinuationIsPlacedWhole(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("file.bin")
        let url = Self.raw(server, status: 206, headers: [
            "ETag: \"v1\"", "Content-Range: bytes 300000-999999/1000000", "Content-Length: 700000",
        ], sent: 700_000, from: 300_000)
        try Self.plantPartial(for: destination, url: url, size: 300_000)
        let file = try await testSession(engine: engine).get(url).downloadToFile(at: destination, resumable: true).content
        #expect(try Data(contentsOf: file) == FaultServer.body(count: 1_000_000))
        #expect(try scratch.entries() == ["file.bin"])
    }

    @Test(arguments: allEngines, ["1e3", "99999999999999999999", "-1", "+5", "5, 6", "0x10", ""])
    func aMalformedContentLengthFailsEveryHandler(engine: Session.Engine, value: String) async throws {
        let server = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let url = Self.raw(server, status: 200, headers: ["Content-Length: \(value)", "Content-Type: application/json"], body: "[1000]")
        let session = testSession(engine: engine)
        let request = session.get(url)
        var errors: [HotPotatoError?] = []
        errors.append(await expectFailure { try await request.asData().content })
        errors.append(await expectFailure { try await request.asString().content })
        errors.append(await expectFailure { try await request.asJSON().content })
        errors.append(await expectFailure { try await request.discardResponseContent().content })
        errors.append(await expectFailure { try await request.downloadToFile(at: scratch.file("a")).content })
        errors.append(await expectFailure { try await request.downloadToFile(at: scratch.file("b"), resumable: true).content })
        for error in errors {
            #expect(error?.code == .malformedResponse, "Content-Length \(value): \(String(describing: error))")
        }
        #expect(try scratch.entries().isEmpty)
    }
}
