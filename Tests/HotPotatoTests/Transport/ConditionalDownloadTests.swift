import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Only if changed (`downloadToFile(…, onlyIfChanged:)`, `keepsRemoteTime:`) against nginx on both
/// engines: the `ETag` saved with the placed file (an extended attribute) goes back as
/// `If-None-Match`, a `304` leaves the file untouched, a changed resource replaces it; the
/// server's `Last-Modified` becomes the file's time, and without an `ETag` `If-Modified-Since`
/// suffices (nginx matches it exactly); the two are never sent together; what is read from the file's attributes never puts anything else
/// into the request.
@Suite(.needsNginx) struct ConditionalDownloadTests {
    /// A file of its own in nginx's root, so that a test may change it.
    private func serve(_ content: String, in nginx: NginxServer) throws -> (name: String, url: URL) {
        let name = "conditional-\(UUID().uuidString).txt"
        try Data(content.utf8).write(to: nginx.root.appendingPathComponent(name))
        return (name, nginx.url(name))
    }

    private func modificationTime(_ url: URL) throws -> Date {
        try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date)
    }

    private func inode(_ url: URL) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? Int)
    }

    @Test(arguments: allEngines) func anUnchangedFileIsLeftAndAChangedOneReplaced(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let (name, url) = try serve("first version", in: nginx)
        defer { try? FileManager.default.removeItem(at: nginx.root.appendingPathComponent(name)) }
        let session = testSession(engine: engine)
        let destination = scratch.file("file.txt")

        let first = try await session.get(url).downloadToFile(at: destination, onlyIfChanged: true).response()
        #expect(first.status == 200)
        let etag = try #require(first.head.headers["ETag"])
        #expect(FileWriter.savedETag(atPath: destination.path) == etag, "the ETag was not kept with the file")
        let inodeBefore = try inode(destination)
        let timeBefore = try modificationTime(destination)
        // The file's own time now differs from Last-Modified by a second or more, as it would
        // in use (nginx compares dates exactly): the ETag alone must decide.
        try await Task.sleep(nanoseconds: 1_100_000_000)

        let writer = Locked<FileWriter?>(nil)
        let second = try await session.get(url).handled(by: {
            let made = FileWriter(destination: destination, onlyIfChanged: true)
            writer.withLock { $0 = made }
            return made
        }()).response()
        #expect(second.status == 304)
        #expect(second.content == destination.standardizedFileURL)
        #expect(writer.withLock { $0 }?.wasNotModified == true)
        #expect(try inode(destination) == inodeBefore && modificationTime(destination) == timeBefore, "an unchanged file was touched")
        #expect(try String(contentsOf: destination, encoding: .utf8) == "first version")

        // A resumable download finds it up to date too, and leaves no partial file behind.
        let resumable = try await session.get(url).downloadToFile(at: destination, resumable: true, onlyIfChanged: true).response()
        #expect(resumable.status == 304)
        ResumableDownloadTests.expectNoPartialState(for: destination)

        // The resource changes (another ETag: nginx's is its time and length).
        try Data("second version, longer".utf8).write(to: nginx.root.appendingPathComponent(name))
        let third = try await session.get(url).downloadToFile(at: destination, onlyIfChanged: true).response()
        #expect(third.status == 200)
        #expect(try String(contentsOf: destination, encoding: .utf8) == "second version, longer")
        #expect(FileWriter.savedETag(atPath: destination.path) == third.head.headers["ETag"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path) == ["file.txt"])
    }

    @Test(arguments: allEngines) func theServersTimeMakesIfModifiedSinceExact(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let (name, url) = try serve("dated", in: nginx)
        let source = nginx.root.appendingPathComponent(name)
        defer { try? FileManager.default.removeItem(at: source) }
        let past = Date(timeIntervalSince1970: 1_000_000_000) // 2001-09-09T01:46:40Z
        try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: source.path)
        let session = testSession(engine: engine)
        let destination = scratch.file("dated.txt")

        // Without onlyIfChanged, no ETag is kept: only the time can tell.
        _ = try await session.get(url).downloadToFile(at: destination, keepsRemoteTime: true).content
        #expect(try modificationTime(destination) == past)
        #expect(FileWriter.savedETag(atPath: destination.path) == nil)
        let again = try await session.get(url).downloadToFile(at: destination, onlyIfChanged: true).response()
        #expect(again.status == 304, "If-Modified-Since from the file's time should have matched Last-Modified")
        #expect(try modificationTime(destination) == past)
    }

    /// An attribute planted on the file (a line break and a header after it) is never sent.
    @Test(.needsHTTPBin, arguments: allEngines) func aPlantedAttributeIsNotSent(engine: Session.Engine) async throws {
        let httpbin = try await TestServers.httpbin()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("headers.json")
        try Data("old".utf8).write(to: destination)
        let fd = open(destination.path, O_RDONLY | O_CLOEXEC)
        #expect(fd >= 0)
        let planted = ExtendedAttributes.set(FileWriter.etagAttribute, to: Array("\"a\"\r\nX-Planted: 1".utf8), on: fd)
        close(fd)
        #expect(planted, "the scratch directory's file system keeps no extended attributes")
        #expect(FileWriter.savedETag(atPath: destination.path) == nil)

        _ = try await testSession(engine: engine).get(httpbin.url("/headers"))
            .downloadToFile(at: destination, onlyIfChanged: true).content
        let echoed = try String(contentsOf: destination, encoding: .utf8)
        #expect(!echoed.contains("X-Planted"), "\(echoed)")
        #expect(!echoed.contains("If-None-Match"), "\(echoed)")
        #expect(echoed.contains("If-Modified-Since"), "\(echoed)")

        // A plain ETag goes back alone: no If-Modified-Since beside it (nginx would want both).
        let again = open(destination.path, O_RDONLY | O_CLOEXEC)
        #expect(ExtendedAttributes.set(FileWriter.etagAttribute, to: Array("\"v1\"".utf8), on: again))
        close(again)
        _ = try await testSession(engine: engine).get(httpbin.url("/headers"))
            .downloadToFile(at: destination, onlyIfChanged: true).content
        let second = try String(contentsOf: destination, encoding: .utf8)
        #expect(second.contains("If-None-Match") && second.contains("v1"), "\(second)")
        #expect(!second.contains("If-Modified-Since"), "\(second)")
    }
}
