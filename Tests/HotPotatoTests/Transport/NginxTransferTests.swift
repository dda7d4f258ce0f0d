import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Large files, keep-alive and byte ranges against nginx.
@Suite(.needsNginx, .serialized) struct NginxTransferTests {

    @Test(arguments: allEngines) func downloadsA256MiBFileByteForByteWithProgress(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let updates = Locked([TransferProgress]())
        let queue = DispatchQueue(label: "progress")
        let response = try await session.get(nginx.url("big.bin"))
            .downloadToFile(at: scratch.file("big.bin"))
            .onProgress(queue: queue) { progress in updates.withLock { $0.append(progress) } }
            .response()
        #expect(try await offThePool { try filesAreIdentical(response.content, nginx.root.appendingPathComponent("big.bin")) })
        #expect(try scratch.entries() == ["big.bin"])
        #expect(openDescriptors(under: scratch.url).isEmpty)
        await drain(queue)  // the updates are on their way, queued before the call completed
        let seen = updates.withLock { $0 }
        #expect(seen.last == TransferProgress(bytesReceived: Int64(NginxServer.bigFileSize), expectedBytes: Int64(NginxServer.bigFileSize)))
        // Throttled to one report per interval (0.1 s), plus the head's and the last: bounded by
        // how long the transfer took, which a busy machine stretches, not by a fixed count. Were
        // every chunk reported, there would be thousands.
        let interval = session.configuration.progressInterval
        let bound = Int(response.timings.total / interval) + 3
        #expect(seen.count <= bound, "throttled: \(seen.count) reports for 16 384 chunks in \(response.timings.total) s")
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.bytesReceived <= $1.bytesReceived })
    }

    /// `onProgress` chained twice keeps both callbacks (as `onHead` does): each, on its own
    /// queue, sees every update to the last.
    @Test(arguments: allEngines) func everyProgressCallbackIsCalled(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let nginx = try await TestServers.nginx()
        let first = Locked([TransferProgress]())
        let second = Locked([TransferProgress]())
        let queue = DispatchQueue(label: "second progress")
        let own = Locked(0)
        let response = try await session.get(nginx.url("medium.bin")).discardResponseContent()
            .onProgress { progress in first.withLock { $0.append(progress) } }
            .onProgress(queue: queue) { progress in
                dispatchPrecondition(condition: .onQueue(queue))
                second.withLock { $0.append(progress) }
            }
            .onProgress { _ in own.withLock { $0 += 1 } }
            .response()
        await drain(queue)
        // The callbacks without a queue share the call's own; wait for it through theirs.
        let size = try #require(response.head.contentLength)
        let total = TransferProgress(bytesReceived: size, expectedBytes: size)
        let reports = second.withLock { $0.count }
        let deadline = ContinuousClock.now + .seconds(10)
        while (first.withLock({ $0.count }) < reports || own.withLock({ $0 }) < reports) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(second.withLock { $0.last } == total)
        #expect(first.withLock { $0.last } == total)
        #expect(first.withLock { $0.count } == second.withLock { $0.count }, "every callback sees every update")
        #expect(own.withLock { $0 } == second.withLock { $0.count })
    }

    @Test(arguments: allEngines) func progressAsAnAsyncSequence(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let nginx = try await TestServers.nginx()
        let call = session.get(nginx.url("medium.bin")).discardResponseContent().start()
        var last: TransferProgress?
        for await progress in call.progress { last = progress }
        _ = try await call.response()
        #expect(last?.bytesReceived == Int64(NginxServer.mediumFileSize))
        #expect(last?.fractionCompleted == 1)
    }

    /// The stream is made when first read: read after the call completed, it still has the last
    /// update, then ends.
    @Test(arguments: allEngines) func progressReadAfterTheCallCompleted(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let nginx = try await TestServers.nginx()
        let call = session.get(nginx.url("medium.bin")).discardResponseContent().start()
        _ = try await call.response()
        var seen: [TransferProgress] = []
        for await progress in call.progress { seen.append(progress) }
        #expect(seen == [TransferProgress(bytesReceived: Int64(NginxServer.mediumFileSize), expectedBytes: Int64(NginxServer.mediumFileSize))])
        var again = 0
        for await _ in call.progress { again += 1 }
        #expect(again == 0, "the same stream, already drained")
    }

    @Test(arguments: allEngines) func asDataAndStreamGiveTheSameBytes(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let nginx = try await TestServers.nginx()
        let source = try Data(contentsOf: nginx.root.appendingPathComponent("medium.bin"))
        #expect(try await session.get(nginx.url("medium.bin")).asData().content == source)
        let stream = OutputStream.toMemory()
        let written = try await session.get(nginx.url("medium.bin")).downloadToStream(stream).content
        #expect(written == Int64(source.count))
        #expect(stream.property(forKey: .dataWrittenToMemoryStreamKey) as? Data == source)
    }

    /// Refused at the head: the 256 MiB, sent at 8 MiB/s, would take half a minute to arrive;
    /// the call fails long before. Timed on the threads that start and complete the call, not by
    /// this task, which a busy machine can keep waiting.
    @Test(arguments: allEngines) func dataOverTheLimitIsRefusedAtTheHead(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let nginx = try await TestServers.nginx()
        let rate = 8 * 1024 * 1024
        let whole = Double(NginxServer.bigFileSize / rate)
        let started = Date()
        let call = session.get(nginx.url("slow/big.bin")).query("rate", String(rate)).asData(maximumBodySize: 1024 * 1024).start()
        let elapsed = await completionDate(of: call).timeIntervalSince(started)
        let error = await expectFailure { try await call.response() }
        #expect(error?.code == .bodyTooLarge)
        #expect(error?.byteCount == Int64(NginxServer.bigFileSize))
        #expect(elapsed < whole / 2, "refused after \(elapsed) s: a download of the whole body takes \(whole) s")
    }

    @Test(arguments: allEngines) func byteRange(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let nginx = try await TestServers.nginx()
        let source = try Data(contentsOf: nginx.root.appendingPathComponent("medium.bin"))
        let response = try await session.get(nginx.url("medium.bin")).header("Range", "bytes=1000-1999").asData().response()
        #expect(response.status == 206)
        #expect(response.headers["Content-Range"] == "bytes 1000-1999/\(source.count)")
        #expect(response.content == source[1000..<2000])
    }

    @Test(arguments: allEngines) func connectionsAreKeptAlive(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let nginx = try await TestServers.nginx()
        var counts: [Int] = []
        for _ in 0..<5 {
            let text = try await session.get(nginx.url("connections")).asString().content
            counts.append(Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0)
        }
        #expect(counts.last ?? 0 > 1, "nginx saw \(counts) requests per connection: the connection was reused")
    }

    @Test(arguments: allEngines) func concurrentDownloads(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let nginx = try await TestServers.nginx()
        let source = try Data(contentsOf: nginx.root.appendingPathComponent("medium.bin"))
        try await withThrowingTaskGroup(of: Data.self) { group in
            for _ in 0..<8 {
                group.addTask { try await session.get(nginx.url("medium.bin")).asData().content }
            }
            for try await data in group { #expect(data == source) }
        }
    }
}
