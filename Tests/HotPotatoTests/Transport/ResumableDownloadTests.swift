import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Resumable downloads (`downloadToFile(at:resumable:)`) against nginx (which honours `If-Range`)
/// and httpbin (which ignores it): continued on `206` for the right range and validator, started
/// over on `200`, completed on `416`, discarded on a mismatch, kept on a rejection.
@Suite struct ResumableDownloadTests {
    /// Starts a resumable download of `url`, throttled to 1 MiB/s (`X-Rate`, which leaves the
    /// URL as it is), and cancels it once `after` bytes have arrived; returns the size of the
    /// partial file it leaves. The cancellation comes from the progress callback on a queue of its
    /// own, not from a task, so that busy cooperative threads cannot delay it.
    static func interrupt(_ url: URL, to destination: URL, engine: Session.Engine, after: Int64) async throws -> Int64 {
        let call = Locked<Call<URL>?>(nil)
        let started = testSession(engine: engine).get(url).header("X-Rate", "1m")
            .downloadToFile(at: destination, resumable: true)
            .onProgress(queue: DispatchQueue(label: "interrupt")) { progress in
                if progress.bytesReceived >= after { call.withLock { $0 }?.cancel() }
            }
            .start()
        call.withLock { $0 = started }
        let error = await expectFailure { try await started.response() }
        #expect(error?.code == .cancelled)
        #expect(!FileManager.default.fileExists(atPath: destination.path), "nothing is placed before the body is complete")
        return try #require(PartialDownload(destination: destination).dataSize())
    }

    /// The bytes a download received, from its response: the body of the last response (the rest,
    /// for one that continued), measured by the handler.
    static func download(_ url: URL, to destination: URL, engine: Session.Engine) async throws -> Int64 {
        let resumedFrom = Locked<Int64>(0)
        let call = testSession(engine: engine).get(url)
            .handled(by: ResumeRecordingWriter(destination: destination, resumedFrom: resumedFrom)).start()
        var last: TransferProgress?
        for await progress in call.progress { last = progress }
        _ = try await call.response()
        let size = try #require(fileSize(destination))
        // Progress counts the whole file, the bytes kept before included.
        #expect(last?.bytesReceived == size)
        #expect(last?.expectedBytes == size)
        return size - resumedFrom.withLock { $0 }
    }

    static func expectNoPartialState(for destination: URL) {
        let partial = PartialDownload(destination: destination)
        #expect(!FileManager.default.fileExists(atPath: partial.dataURL.path))
        #expect(!FileManager.default.fileExists(atPath: partial.infoURL.path))
    }

    @Test(.needsNginx, arguments: allEngines) func continuesAfterAnInterruption(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("medium.bin")
        let url = try #require(URL(string: "\(nginx.baseURL)/slow/medium.bin"))
        let kept = try await Self.interrupt(url, to: destination, engine: engine, after: 1024 * 1024)
        #expect(kept >= 1024 * 1024 && kept < Int64(NginxServer.mediumFileSize))
        let info = try #require(PartialDownload(destination: destination).loadInfo())
        #expect(info.url == url.absoluteString)
        #expect(info.etag != nil)

        let received = try await Self.download(url, to: destination, engine: engine)
        #expect(received == Int64(NginxServer.mediumFileSize) - kept, "only the rest was asked for")
        let expected = try Data(contentsOf: nginx.root.appendingPathComponent("medium.bin"))
        #expect(try Data(contentsOf: destination) == expected)
        Self.expectNoPartialState(for: destination)
    }

    @Test(.needsNginx, arguments: allEngines) func startsOverWhenTheFileChanged(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let name = "changing-\(UUID().uuidString).bin"
        let source = nginx.root.appendingPathComponent(name)
        defer { try? FileManager.default.removeItem(at: source) }
        try Data(repeating: 1, count: 16 * 1024 * 1024).write(to: source)
        let destination = scratch.file(name)
        let url = try #require(URL(string: "\(nginx.baseURL)/slow/\(name)"))
        let kept = try await Self.interrupt(url, to: destination, engine: engine, after: 1024 * 1024)
        #expect(kept > 0)

        // New content and an older modification time: nginx's ETag (time and size) changes, so
        // it ignores the range (If-Range) and sends the whole new file.
        let changed = Data((0..<(3 * 1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try changed.write(to: source)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: source.path)
        let received = try await Self.download(url, to: destination, engine: engine)
        #expect(received == Int64(changed.count))
        #expect(try Data(contentsOf: destination) == changed)
        Self.expectNoPartialState(for: destination)
    }

    @Test(.needsNginx, arguments: allEngines) func lastModifiedServesWhenThereIsNoETag(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("medium.bin")
        let url = try #require(URL(string: "\(nginx.baseURL)/noetag/medium.bin"))
        let kept = try await Self.interrupt(url, to: destination, engine: engine, after: 1024 * 1024)
        let info = try #require(PartialDownload(destination: destination).loadInfo())
        #expect(info.etag == nil)
        #expect(info.lastModified != nil)
        let received = try await Self.download(url, to: destination, engine: engine)
        #expect(received == Int64(NginxServer.mediumFileSize) - kept)
        #expect(try Data(contentsOf: destination) == Data(contentsOf: nginx.root.appendingPathComponent("medium.bin")))
    }

    @Test(.needsNginx, arguments: allEngines) func aRejectionKeepsThePartialFile(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("gone.bin")
        let url = nginx.url("no-such-file.bin")
        let partial = PartialDownload(destination: destination)
        try Data(repeating: 7, count: 1000).write(to: partial.dataURL)
        try partial.saveInfo(PartialDownload.Info(url: url.absoluteString, etag: "\"abc\""))
        let error = await expectFailure {
            try await testSession(engine: engine).get(url).downloadToFile(at: destination, resumable: true).response()
        }
        #expect(error?.code == .unacceptableStatus)
        #expect(error?.status == 404)
        #expect(partial.dataSize() == 1000, "a 404 says nothing about the partial file")
        #expect(partial.loadInfo()?.etag == "\"abc\"")
    }

    /// httpbin's `/range/N`: byte i is `a` + i % 26, with `ETag: rangeN`; it honours `Range`
    /// but not `If-Range`.
    static func httpbinBytes(_ count: Int) -> Data {
        Data((0..<count).map { UInt8(ascii: "a") + UInt8($0 % 26) })
    }

    @Test(.needsHTTPBin, arguments: allEngines) func continuesFromHTTPBin(engine: Session.Engine) async throws {
        let httpbin = try await TestServers.httpbin()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("range.bin")
        let url = httpbin.url("/range/5000")
        let partial = PartialDownload(destination: destination)
        try Self.httpbinBytes(1234).write(to: partial.dataURL)
        try partial.saveInfo(PartialDownload.Info(url: url.absoluteString, etag: "range5000"))
        let received = try await Self.download(url, to: destination, engine: engine)
        #expect(received == 5000 - 1234)
        #expect(try Data(contentsOf: destination) == Self.httpbinBytes(5000))
        Self.expectNoPartialState(for: destination)
    }

    @Test(.needsHTTPBin, arguments: allEngines) func aCompletePartialFileIsPlacedOn416(engine: Session.Engine) async throws {
        let httpbin = try await TestServers.httpbin()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("range.bin")
        let url = httpbin.url("/range/3000")
        let partial = PartialDownload(destination: destination)
        try Self.httpbinBytes(3000).write(to: partial.dataURL)
        try partial.saveInfo(PartialDownload.Info(url: url.absoluteString, etag: "range3000"))
        let response = try await testSession(engine: engine).get(url).downloadToFile(at: destination, resumable: true).response()
        #expect(response.status == 416)
        #expect(try Data(contentsOf: destination) == Self.httpbinBytes(3000))
        Self.expectNoPartialState(for: destination)
    }

    @Test(.needsHTTPBin, arguments: allEngines) func anotherValidatorDiscardsThePartialFile(engine: Session.Engine) async throws {
        let httpbin = try await TestServers.httpbin()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("range.bin")
        let url = httpbin.url("/range/2000")
        let partial = PartialDownload(destination: destination)
        try Data(repeating: 0, count: 700).write(to: partial.dataURL)
        try partial.saveInfo(PartialDownload.Info(url: url.absoluteString, etag: "an-older-version"))
        // httpbin ignores If-Range and answers 206 with ETag range2000: not the partial's version.
        let error = await expectFailure {
            try await testSession(engine: engine).get(url).downloadToFile(at: destination, resumable: true).response()
        }
        #expect(error?.code == .resumeMismatch)
        #expect(error?.status == 206)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        Self.expectNoPartialState(for: destination)
        // The next attempt starts over.
        _ = try await Self.download(url, to: destination, engine: engine)
        #expect(try Data(contentsOf: destination) == Self.httpbinBytes(2000))
    }

    @Test(arguments: allEngines) func aTruncatedBodyIsKeptButWithoutAValidatorStartsOver(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("short.bin")
        let url = server.url("/short?declared=5000&sent=3000")
        let error = await expectFailure {
            try await testSession(engine: engine).get(url).downloadToFile(at: destination, resumable: true).response()
        }
        #expect(error?.code == .truncatedBody)
        let partial = PartialDownload(destination: destination)
        #expect(partial.dataSize() == 3000, "every byte received is kept")
        #expect(try Data(contentsOf: partial.dataURL) == FaultServer.body(count: 3000))
        #expect(partial.loadInfo()?.validator == nil, "the fault server sends no validator")
        // Without a validator it cannot be continued safely: the next attempt asks for everything.
        let again = await expectFailure {
            try await testSession(engine: engine).get(url).downloadToFile(at: destination, resumable: true).response()
        }
        #expect(again?.code == .truncatedBody)
        #expect(partial.dataSize() == 3000, "started over, not appended")
    }

    @Test(arguments: allEngines) func withoutResumingNothingIsKept(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("short.bin")
        let error = await expectFailure {
            try await testSession(engine: engine).get(server.url("/short?declared=5000&sent=3000")).downloadToFile(at: destination).response()
        }
        #expect(error?.code == .truncatedBody)
        #expect(try scratch.entries().isEmpty)
    }
}

/// A resumable `FileWriter` that records where its response continued the partial file.
final class ResumeRecordingWriter: FileWriter, @unchecked Sendable {
    private let resumedFromRecord: Locked<Int64>

    init(destination: URL, resumedFrom: Locked<Int64>) {
        resumedFromRecord = resumedFrom
        super.init(destination: destination, resumable: true)
    }

    override func prepare(for head: ResponseHead) throws {
        try super.prepare(for: head)
        resumedFromRecord.withLock { $0 = resumedFrom }
    }
}
