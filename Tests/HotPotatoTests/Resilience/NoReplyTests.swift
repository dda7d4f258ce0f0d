import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// A connection the server closes without a byte of reply is a lost connection on every engine —
/// the same error, retried the same way — whether the request had been read (an empty reply) or
/// its body was cut off (a broken pipe or a reset while it was sent).
@Suite struct NoReplyTests {
    private static let quick = RetryPolicy(maximumAttempts: 3, initialDelay: 0, jitter: 0)

    @Test(arguments: allEngines) func anEmptyReplyIsALostConnection(engine: Session.Engine) async throws {
        let server = try await TestServers.retry()
        let name = "empty-\(engine)-\(UUID().uuidString)"
        let error = await expectFailure {
            try await testSession(engine: engine).get(server.url("/silent/\(name)?fail=1")).asJSON().retry(.never).response()
        }
        #expect(error?.code == .connectionLost, "\(String(describing: error))")
        #expect(error?.head == nil)
    }

    @Test(arguments: allEngines) func anEmptyReplyToAGETIsRetried(engine: Session.Engine) async throws {
        let server = try await TestServers.retry()
        let name = "empty-retried-\(engine)-\(UUID().uuidString)"
        let response = try await testSession(engine: engine).get(server.url("/silent/\(name)?fail=2")).asJSON()
            .retry(Self.quick).response()
        #expect(response.content["attempt"] == 3)
        #expect(server.records("/silent/\(name)").count == 3)
    }

    @Test(arguments: allEngines) func anUploadCutOffIsALostConnection(engine: Session.Engine) async throws {
        let server = try await TestServers.retry()
        let name = "hangup-\(engine)-\(UUID().uuidString)"
        let body = Data(repeating: 0x61, count: 8 << 20)
        let error = await expectFailure {
            try await testSession(engine: engine).post(server.url("/hangup/\(name)?fail=1")).body(body).asJSON()
                .retry(.never).response()
        }
        #expect(error?.code == .connectionLost, "\(String(describing: error))")
    }

    /// A body from a file goes another way on the URLSession engine (an upload task).
    @Test(arguments: allEngines) func aFileUploadCutOffIsALostConnection(engine: Session.Engine) async throws {
        let server = try await TestServers.retry()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("body.bin")
        try Data(repeating: 0x62, count: 8 << 20).write(to: file)
        let name = "hangup-file-\(engine)-\(UUID().uuidString)"
        let error = await expectFailure {
            try await testSession(engine: engine).put(server.url("/hangup/\(name)?fail=1")).body(fileAt: file).asJSON()
                .retry(.never).response()
        }
        #expect(error?.code == .connectionLost, "\(String(describing: error))")
    }

    @Test(arguments: allEngines) func anIdempotentUploadCutOffIsRetried(engine: Session.Engine) async throws {
        let server = try await TestServers.retry()
        let name = "hangup-retried-\(engine)-\(UUID().uuidString)"
        let body = Data(repeating: 0x61, count: 8 << 20)
        let response = try await testSession(engine: engine).put(server.url("/hangup/\(name)?fail=1")).body(body).asJSON()
            .retry(Self.quick).response()
        #expect(response.content["attempt"] == 2)
        #expect(response.content["length"] == .number(JSON.Number(body.count)))
    }
}
