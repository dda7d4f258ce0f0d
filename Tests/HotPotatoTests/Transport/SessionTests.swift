import Foundation
import Testing
@testable import HotPotato

@Suite(.needsNginx) struct SessionTests {
    @Test(arguments: allEngines) func droppingTheSessionLetsItsCallsFinish(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let call = testSession(engine: engine).get(nginx.url("medium.bin")).asData().start()
        #expect(try await call.response().content.count == NginxServer.mediumFileSize)
    }

    @Test(arguments: allEngines) func invalidateCancelsCallsInFlightAndRefusesNewOnes(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let session = testSession(engine: engine)
        let call = session.get(nginx.url("big.bin")).handled(by: SlowFileWriter(
            destination: FileManager.default.temporaryDirectory.appendingPathComponent("hotpotato-\(UUID().uuidString)")))
            .start()
        for await progress in call.progress where progress.bytesReceived > 0 { break }
        session.invalidate()
        let error = await expectFailure { try await call.response() }
        #expect(error?.code == .cancelled)
        let refused = await expectFailure { try await session.get(nginx.url("small.json")).response() }
        #expect(refused?.code == .invalidRequest)
    }

    @Test(arguments: allEngines) func dataURLs(engine: Session.Engine) async throws {
        let text = try await testSession(engine: engine).get("data:text/plain;charset=utf-8,hot%20potato").asString().content
        #expect(text == "hot potato")
    }
}
