import Foundation
import Testing
@testable import HotPotato
#if canImport(Glibc)
import Glibc
#endif

/// A resumable download's partial file belongs to one download of one user: a second writer
/// fails at once and touches nothing, and a partial file or record that someone else planted (a
/// link, another user's file) is never appended to, read, or written through.
@Suite struct PartialFileOwnershipTests {
    @Test(.needsNginx, arguments: allEngines) func aSecondWriterFailsAtOnceAndTouchesNothing(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("medium.bin")
        let url = nginx.url("slow/medium.bin")
        let session = testSession(engine: engine)
        let reached = DispatchSemaphore(value: 0)
        let signalled = Locked(false)
        let first = session.get(url).header("X-Rate", "4m").downloadToFile(at: destination, resumable: true)
            .onProgress(queue: DispatchQueue(label: "first")) { progress in
                if progress.bytesReceived > 256 * 1024, signalled.withLock({ flag in defer { flag = true }; return !flag }) {
                    reached.signal()
                }
            }
            .start()
        try await offThePool { _ = reached.wait(timeout: .now() + 30) }
        let partialBefore = try #require(PartialDownload(destination: destination).dataSize())
        let second = await expectFailure {
            try await session.get(url).downloadToFile(at: destination, resumable: true).response()
        }
        #expect(second?.code == .destinationBusy, "\(String(describing: second))")
        #expect(second?.path == FileWriter.partialFileURL(for: destination).path)
        #expect((PartialDownload(destination: destination).dataSize() ?? 0) >= partialBefore, "the partial was not truncated")
        let file = try await first.response().content
        #expect(try Data(contentsOf: file) == Data(contentsOf: nginx.root.appendingPathComponent("medium.bin")))
        #expect(try scratch.entries() == ["medium.bin"])
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
