import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

@Suite struct FileWriterTests {
    @Test(arguments: Chunking.allCases)
    func writesTheBodyAndPlacesTheFile(chunking: Chunking) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("download.bin")
        let body = patternedData(count: 200_001)
        let url = try drive(FileWriter(destination: destination), head: head(200, contentLength: body.count), body: body, chunking: chunking)
        #expect(url == destination.standardizedFileURL)
        #expect(try Data(contentsOf: destination) == body)
        #expect(try scratch.entries() == ["download.bin"], "no temporary file is left")
        #expect(openDescriptors(under: scratch.url).isEmpty)
        let mode = try #require(FileManager.default.attributesOfItem(atPath: destination.path)[.posixPermissions] as? Int)
        #expect(mode == Int(POSIXFile.regularFileMode), "placed files get the usual permissions")
    }

    @Test func writesIntoAPrivateTemporaryFileUntilComplete() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("file.txt")
        let writer = FileWriter(destination: destination)
        let driver = ResponseDriver(handler: writer)
        #expect(driver.receive(head: head(200)))
        #expect(driver.receive(Data("first half ".utf8)))
        // On Linux an anonymous file in the destination's directory, with no name to leave behind;
        // elsewhere a named one beside the destination.
        let open = openDescriptors(under: scratch.url)
        #expect(open.count == 1, "created beside the destination: \(open)")
        if let temporary = writer.temporaryURL {
            #expect(temporary.lastPathComponent.hasPrefix(".file.txt.hotpotato-"))
            let attributes = try FileManager.default.attributesOfItem(atPath: temporary.path)
            #expect(attributes[.posixPermissions] as? Int == 0o600)
        } else {
            #if os(Linux)
            #expect(try scratch.entries().isEmpty, "an anonymous file has no name")
            var status = stat()
            #expect(stat("/proc/self/fd/" + (try Self.descriptor(of: open[0])), &status) == 0)
            #expect(status.st_mode & 0o777 == 0o600)
            #endif
        }
        #expect(!FileManager.default.fileExists(atPath: destination.path), "nothing at the destination yet")
        #expect(driver.receive(Data("second half".utf8)))
        #expect(try driver.finish().get() == destination.standardizedFileURL)
        #expect(try String(contentsOf: destination, encoding: .utf8) == "first half second half")
        #expect(try scratch.entries() == ["file.txt"])
        #expect(openDescriptors(under: scratch.url).isEmpty)
    }

    /// The descriptor number through which this process holds `path` open.
    static func descriptor(of path: String) throws -> String {
        let entries = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
        return try #require(entries.first { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == path })
    }

    /// Placing renames over the destination: a FIFO (or a device, such as /dev/null, which a test
    /// must not touch) there is never replaced, whatever the policy; nothing is written or left.
    @Test(arguments: [ExistingFilePolicy.replace, .fail]) func aDestinationThatIsNotAFileIsNeverReplaced(policy: ExistingFilePolicy) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let fifo = scratch.file("pipe")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        for onlyIfChanged in [false, true] {
            let error = try #require(expectFailure {
                try drive(FileWriter(destination: fifo, existingFilePolicy: policy, onlyIfChanged: onlyIfChanged),
                          head: head(200, contentType: "application/octet-stream"), body: Data("bytes".utf8))
            })
            #expect(error.code == (policy == .fail && !onlyIfChanged ? .destinationExists : .fileSystemError), "\(error)")
            var status = stat()
            #expect(lstat(fifo.path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFIFO, "the FIFO was replaced")
            #expect(try scratch.entries() == ["pipe"])
        }
    }

    @Test func rejectedResponseCreatesNothing() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let error = try #require(expectFailure {
            try drive(FileWriter(destination: scratch.file("out")), head: head(404, contentType: "text/plain"), body: Data("no such file".utf8))
        })
        #expect(error.code == .unacceptableStatus)
        #expect(error.errorBody?.text == "no such file")
        #expect(try scratch.entries().isEmpty)
        #expect(openDescriptors(under: scratch.url).isEmpty)
    }

    @Test(arguments: Chunking.allCases)
    func truncatedBodyLeavesNoPartialFileAndTheOldFileUntouched(chunking: Chunking) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("existing.bin")
        try Data("precious".utf8).write(to: destination)
        let writer = FileWriter(destination: destination, existingFilePolicy: .replace)
        let error = try #require(expectFailure {
            try drive(writer, head: head(200, contentLength: 50_000), body: patternedData(count: 30_000), chunking: chunking)
        })
        #expect(error.code == .truncatedBody)
        #expect(try scratch.entries() == ["existing.bin"])
        #expect(try Data(contentsOf: destination) == Data("precious".utf8))
        #expect(openDescriptors(under: scratch.url).isEmpty)
    }

    @Test func cancellationMidBodyRemovesThePartialFile() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let writer = FileWriter(destination: scratch.file("big"))
        let driver = ResponseDriver(handler: writer)
        driver.receive(head: head(200, contentLength: 1_000_000))
        for chunk in Chunking.sixteenKiB.split(patternedData(count: 500_000)) { driver.receive(chunk) }
        #expect(openDescriptors(under: scratch.url).count == 1, "the temporary file is open while downloading")
        #expect(driver.fail(CancellationError()).failure?.code == .cancelled)
        #expect(try scratch.entries().isEmpty)
        #expect(openDescriptors(under: scratch.url).isEmpty)
        writer.cleanUp()  // idempotent
        #expect(try scratch.entries().isEmpty)
    }

    @Test func existingDestinationFailsBeforeDownloading() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("keep.txt")
        try Data("mine".utf8).write(to: destination)
        let driver = ResponseDriver(handler: FileWriter(destination: destination))
        #expect(!driver.receive(head: head(200, contentLength: 5)), "refused at the head")
        let error = try #require(driver.result?.failure)
        #expect(error.code == .destinationExists)
        #expect(error.path == destination.standardizedFileURL.path)
        #expect(try Data(contentsOf: destination) == Data("mine".utf8))
        #expect(try scratch.entries() == ["keep.txt"])
    }

    @Test func fileAppearingDuringTheDownloadIsNotClobbered() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("race.txt")
        let driver = ResponseDriver(handler: FileWriter(destination: destination))
        driver.receive(head: head(200))
        driver.receive(Data("downloaded".utf8))
        try Data("someone else".utf8).write(to: destination)
        let error = try #require(driver.finish().failure)
        #expect(error.code == .destinationExists)
        #expect(try String(contentsOf: destination, encoding: .utf8) == "someone else")
        #expect(try scratch.entries() == ["race.txt"])
    }

    @Test func replacePolicyReplacesOnSuccess() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("replace.txt")
        try Data("old".utf8).write(to: destination)
        try drive(FileWriter(destination: destination, existingFilePolicy: .replace), head: head(200), body: Data("new".utf8))
        #expect(try String(contentsOf: destination, encoding: .utf8) == "new")
        #expect(try scratch.entries() == ["replace.txt"])
    }

    @Test func missingDirectoryFailsUnlessAskedToCreateIt() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let nested = scratch.url.appendingPathComponent("a/b/c.txt")
        let error = expectFailure { try drive(FileWriter(destination: nested), head: head(200), body: Data("x".utf8)) }
        #expect(error?.code == .fileSystemError)
        #expect(error?.path == scratch.url.appendingPathComponent("a/b").standardizedFileURL.path)
        #expect(try scratch.entries().isEmpty)

        try drive(FileWriter(destination: nested, createsIntermediateDirectories: true), head: head(200), body: Data("x".utf8))
        #expect(try String(contentsOf: nested, encoding: .utf8) == "x")
    }

    @Test func destinationThatIsADirectory() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.file("dir")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        let error = expectFailure { try drive(FileWriter(destination: directory, existingFilePolicy: .replace), head: head(200), body: Data("x".utf8)) }
        #expect(error?.code == .fileSystemError)
        #expect(try scratch.entries() == ["dir"])
    }

    @Test func symbolicLinkAtTheDestinationIsReplacedNotFollowed() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let target = scratch.file("target.txt")
        try Data("target".utf8).write(to: target)
        let link = scratch.file("link.txt")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        try drive(FileWriter(destination: link, existingFilePolicy: .replace), head: head(200), body: Data("downloaded".utf8))
        #expect(try String(contentsOf: target, encoding: .utf8) == "target", "the link's target is not written through")
        #expect(try String(contentsOf: link, encoding: .utf8) == "downloaded")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link.path)) == nil, "the link itself was replaced")
    }

    @Test(arguments: [head(204), head(200, method: "HEAD")])
    func bodylessResponseGivesAnEmptyFile(response: ResponseHead) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let url = try drive(FileWriter(destination: scratch.file("empty")), head: response, body: Data())
        #expect(try Data(contentsOf: url).isEmpty)
    }

    @Test(.enabled(if: SmallFileSystem.isSupported, "needs Linux and root to mount a tmpfs"))
    func noSpaceLeftIsAWriteErrorWithNothingLeftBehind() throws {
        let volume = try SmallFileSystem(bytes: 64 * 1024)
        defer { volume.unmount() }
        let destination = volume.file("huge.bin")
        let error = try #require(expectFailure {
            try drive(FileWriter(destination: destination), head: head(200), body: patternedData(count: 1_000_000), chunking: .sixteenKiB)
        })
        #expect(error.code == .writeFailed)
        #expect((error.underlying as? POSIXError)?.code == .ENOSPC)
        #expect(error.byteOffset != nil)
        #expect(try volume.entries().isEmpty, "the partial file is removed")
        #expect(openDescriptors(under: volume.url).isEmpty)
    }

    @Test(.enabled(if: SmallFileSystem.isSupported, "needs Linux and root to mount a tmpfs"))
    func readOnlyDirectoryFailsAtTheHead() throws {
        let volume = try SmallFileSystem(bytes: 64 * 1024, readOnly: true)
        defer { volume.unmount() }
        let driver = ResponseDriver(handler: FileWriter(destination: volume.file("out")))
        #expect(!driver.receive(head: head(200)))
        let error = try #require(driver.result?.failure)
        #expect(error.code == .fileSystemError)
        #expect((error.underlying as? POSIXError)?.code == .EROFS)
        #expect(try volume.entries().isEmpty)
    }
}
