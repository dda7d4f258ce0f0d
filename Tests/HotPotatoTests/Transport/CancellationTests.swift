import Foundation
import Testing
@testable import HotPotato

/// Cancellation is authoritative: the call completes promptly with `.cancelled`, the handler
/// cleans up (no partial file), and nothing waits for URLSession.
@Suite(.needsNginx) struct CancellationTests {
    /// "Promptly": well under the seconds a 256 MiB download through a slow handler takes, with
    /// room for a 2-core machine busy with the rest of the suite.
    static let prompt: TimeInterval = 2

    enum Point: String, CaseIterable, Sendable {
        case immediately, afterTheHead, midway, nearTheEnd
    }

    @Test(arguments: Point.allCases)
    func cancellingADownload(at point: Point) async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let size = Int64(NginxServer.bigFileSize)
        let session = testSession { $0.progressInterval = 0.01 }
        let destination = scratch.file("big.bin")
        let call = session.get(nginx.url("big.bin"))
            .handled(by: SlowFileWriter(destination: destination))
            .start()
        switch point {
        case .immediately:
            break
        case .afterTheHead, .midway, .nearTheEnd:
            let threshold: Int64 = point == .afterTheHead ? 1 : point == .midway ? size / 2 : size * 9 / 10
            for await progress in call.progress where progress.bytesReceived >= threshold { break }
        }
        let cancelled = Date()
        call.cancel()
        let error = await expectFailure { try await call.response() }
        let latency = Date().timeIntervalSince(cancelled)
        #expect(error?.code == .cancelled)
        #expect(latency < Self.prompt, "completed \(latency) s after cancel()")
        #expect(try scratch.entries().isEmpty, "no partial file")
        #expect(openDescriptors(under: scratch.url).isEmpty)
    }

    @Test func cancellingTheAwaitingTask() async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let session = testSession()
        let request = session.get(nginx.url("big.bin")).handled(by: SlowFileWriter(destination: scratch.file("big.bin")))
        let task = Task { try await request.response() }
        try await Task.sleep(for: .milliseconds(200))
        let cancelled = Date()
        task.cancel()
        let result = await task.result
        let latency = Date().timeIntervalSince(cancelled)
        #expect((result.failure as? HotPotatoError)?.code == .cancelled)
        #expect(latency < Self.prompt)
        #expect(try scratch.entries().isEmpty)
    }

    @Test func cancelWaitsOnlyForTheHandlerCallInProgress() async throws {
        /// Blocks on its first chunk until the test has cancelled.
        final class BlockingHandler: SelectiveDiscarder<Void> {
            let entered: DispatchSemaphore
            init(entered: DispatchSemaphore) {
                self.entered = entered
                super.init()
            }
            override func receive(_ chunk: Data) throws {
                entered.signal()
                usleep(300_000)
            }
        }
        let nginx = try await TestServers.nginx()
        let entered = DispatchSemaphore(value: 0)
        let call = testSession().get(nginx.url("big.bin")).handled(by: BlockingHandler(entered: entered)).start()
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { entered.wait(); continuation.resume() }
        }
        let cancelled = Date()
        call.cancel()
        let error = await expectFailure { try await call.response() }
        let latency = Date().timeIntervalSince(cancelled)
        #expect(error?.code == .cancelled)
        #expect(latency < Self.prompt, "the 300 ms handler call finishes, then the call completes: \(latency) s")
    }

    @Test func cancellingACompletedCallChangesNothing() async throws {
        let nginx = try await TestServers.nginx()
        let call = testSession().get(nginx.url("small.json")).asJSON().start()
        let json = try await call.response().content
        call.cancel()
        #expect(try await call.response().content == json)
        #expect(call.isComplete)
    }
}
