import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A resumable download's partial file belongs to one download of one user: a second writer
/// fails at once and touches nothing, and a partial file or record that someone else planted (a
/// link, another user's file) is never appended to, read, or written through.
@Suite struct PartialFileOwnershipTests {
    @Test(arguments: allEngines) func aSecondWriterFailsAtOnceAndTouchesNothing(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("lines.json")
        // The server sends the first 600 000 bytes, then holds the rest until the gate opens: the
        // first download is certainly in progress, holding the partial file, while the second runs.
        let gate = UUID().uuidString
        let count = 20_000
        let url = server.url("/jsonlines?count=\(count)&holdAt=600000&gate=\(gate)")
        // A long idle timeout: the first download waits at the gate for as long as the test takes
        // to start the second, and must still hold its partial file then, however loaded the
        // machine (a clean-clone CI run under heavy load saw it time out first, and the second
        // then take its partial as any later download would).
        let session = testSession(engine: engine, timeout: 300)
        let first = session.get(url).downloadToFile(at: destination, resumable: true).start()
        // Writes reach the disk in blocks of up to 256 KiB: wait for the first one.
        let partial = PartialDownload(destination: destination)
        let arrived = try await offThePool { PotatoProcess.waitUntil(seconds: 60) { (partial.dataSize() ?? 0) >= 256 * 1024 } }
        #expect(arrived)
        let partialBefore = PartialDownload(destination: destination).dataSize()
        #expect(partialBefore != nil, "the first download holds its partial file")
        let inodeBefore = POSIXFile.linkStatus(partial.dataURL.path)?.st_ino
        let second = await expectFailure {
            try await session.get(url).downloadToFile(at: destination, resumable: true).response()
        }
        #expect(second?.code == .destinationBusy, "\(String(describing: second))")
        #expect(second?.path == FileWriter.partialFileURL(for: destination).path)
        // Untouched by the second: the same file, not shorter, and still a prefix of the body. (The
        // first download may still be writing the bytes it received before the server's hold, so
        // its size may have grown meanwhile.)
        #expect(POSIXFile.linkStatus(partial.dataURL.path)?.st_ino == inodeBefore, "the partial was not replaced")
        let partialAfter = try Data(contentsOf: partial.dataURL)
        #expect(Int64(partialAfter.count) >= partialBefore ?? 0, "the partial was not truncated")
        #expect(FaultServer.jsonLines(count: count).starts(with: partialAfter), "the partial is still a prefix of the body")
        FaultServer.openGate(gate)
        let file = try await first.response().content
        #expect(try Data(contentsOf: file) == FaultServer.jsonLines(count: count))
        #expect(try scratch.entries() == ["lines.json"])
        #expect(openDescriptors(under: scratch.url).isEmpty)
    }

    /// A file where the partial file goes that is not the current user's private file.
    enum Planted: String, CaseIterable, Sendable {
        case symbolicLink, hardLink, anotherUsersFile, fifo
    }

    @Test(arguments: allEngines, Planted.allCases)
    func aPlantedPartialFileIsNeverTrusted(engine: Session.Engine, planted: Planted) async throws {
        if planted == .anotherUsersFile && geteuid() != 0 { return }  // Only root can make one.
        let server = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("file.bin")
        let url = HostileResumeTests.raw(server, status: 200, headers: ["ETag: \"v1\"", "Content-Length: 5000"], sent: 5000)
        let partial = PartialDownload(destination: destination)
        let victim = scratch.file("victim")
        let victimBytes = Data(repeating: 0xEE, count: 1000)
        try victimBytes.write(to: victim)
        switch planted {
        case .symbolicLink:
            try FileManager.default.createSymbolicLink(atPath: partial.dataURL.path, withDestinationPath: victim.path)
        case .hardLink:
            #expect(link(victim.path, partial.dataURL.path) == 0)
        case .anotherUsersFile:
            try victimBytes.write(to: partial.dataURL)
            #expect(chown(partial.dataURL.path, 65534, 65534) == 0)
        case .fifo:
            #expect(mkfifo(partial.dataURL.path, 0o600) == 0)
        }
        // A record that would have the attacker's bytes continued.
        try PartialDownload.Info(url: url.absoluteString, etag: "\"v1\"").write(to: partial.infoURL)
        let file = try await testSession(engine: engine).get(url).downloadToFile(at: destination, resumable: true).content
        #expect(try Data(contentsOf: file) == FaultServer.body(count: 5000), "started over, nothing of the planted file in it")
        #expect(try Data(contentsOf: victim) == victimBytes, "the victim file was not written through a link")
        let owner = try #require(FileManager.default.attributesOfItem(atPath: file.path)[.ownerAccountID] as? Int)
        #expect(owner == Int(geteuid()), "the placed file is the caller's")
        #expect(try scratch.entries() == ["file.bin", "victim"])
    }

    @Test(arguments: allEngines) func aPlantedRecordLinkIsNotWrittenThrough(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("file.bin")
        let url = HostileResumeTests.raw(server, status: 200, headers: ["ETag: \"v1\"", "Content-Length: 5000"], sent: 3000)
        let partial = PartialDownload(destination: destination)
        let victim = scratch.file("victim")
        try Data("keep me".utf8).write(to: victim)
        try FileManager.default.createSymbolicLink(atPath: partial.infoURL.path, withDestinationPath: victim.path)
        let error = await expectFailure {
            try await testSession(engine: engine).get(url).downloadToFile(at: destination, resumable: true).response()
        }
        #expect(error?.code == .truncatedBody)
        #expect(try String(contentsOf: victim, encoding: .utf8) == "keep me")
        let info = try #require(partial.loadInfo(), "a record of our own replaced the link")
        #expect(info.etag == "\"v1\"")
        #expect(partial.dataSize() == 3000)
    }

    @Test(arguments: allEngines, [false, true])
    func namesUpToTheFileSystemsLimitWork(engine: Session.Engine, resumable: Bool) async throws {
        let server = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let name = String(repeating: "é", count: 120) + ".bin12345678901"  // 240 + 15 = 255 bytes
        #expect(name.utf8.count == 255)
        let destination = scratch.file(name)
        let cut = HostileResumeTests.raw(server, status: 200, headers: ["ETag: \"v1\"", "Content-Length: 5000"], sent: 3000)
        let error = await expectFailure {
            try await testSession(engine: engine).get(cut).downloadToFile(at: destination, resumable: resumable).response()
        }
        #expect(error?.code == .truncatedBody, "\(String(describing: error))")
        if resumable {
            let partial = PartialDownload(destination: destination)
            #expect(partial.dataSize() == 3000)
            #expect(partial.dataURL.lastPathComponent.utf8.count <= 255 && partial.infoURL.lastPathComponent.utf8.count <= 255)
        }
        let whole = HostileResumeTests.raw(server, status: 200, headers: ["ETag: \"v1\"", "Content-Length: 5000"], sent: 5000)
        let file = try await testSession(engine: engine).get(whole).downloadToFile(at: destination, resumable: resumable).content
        #expect(try Data(contentsOf: file) == FaultServer.body(count: 5000))
        #expect(try scratch.entries() == [name])
    }

    @Test func longNamesGetDistinctStableAuxiliaryNames() {
        let base = String(repeating: "x", count: 250)
        let first = AuxiliaryFileName.name(for: base + "a", suffix: ".hotpotato-partial")
        let second = AuxiliaryFileName.name(for: base + "b", suffix: ".hotpotato-partial")
        #expect(first != second)
        #expect(first == AuxiliaryFileName.name(for: base + "a", suffix: ".hotpotato-partial"))
        #expect(first.utf8.count <= 255)
        #expect(AuxiliaryFileName.name(for: "short.bin", suffix: ".hotpotato-partial") == ".short.bin.hotpotato-partial")
        let multibyte = AuxiliaryFileName.stem(for: String(repeating: "😀", count: 63))  // 252 bytes
        #expect(multibyte.utf8.count + 33 <= 255)
        #expect(multibyte.unicodeScalars.allSatisfy { $0 == "😀" || $0 == "~" || $0.properties.isASCIIHexDigit })
    }
}

extension PartialDownload.Info {
    /// Writes this record as a plain file, as a test plants one.
    func write(to url: URL) throws {
        try JSONEncoder().encode(self).write(to: url)
    }
}
