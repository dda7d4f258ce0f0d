import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

@Suite(.needsNginx) struct SessionTests {
    @Test(arguments: allEngines) func droppingTheSessionLetsItsCallsFinish(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let call = testSession(engine: engine).get(nginx.url("medium.bin")).asData().start()
        #expect(try await call.response().content.count == NginxServer.mediumFileSize)
    }

    @Test(arguments: allEngines) func invalidateCancelsCallsInFlightAndRefusesNewOnes(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let session = testSession(engine: engine)
        // Invalidated from the progress callback, on a queue of its own, as soon as bytes arrive:
        // mid-download however long this task would wait for a cooperative thread.
        let call = session.get(nginx.url("big.bin")).handled(by: SlowFileWriter(
            destination: FileManager.default.temporaryDirectory.appendingPathComponent("hotpotato-\(UUID().uuidString)")))
            .onProgress(queue: DispatchQueue(label: "invalidator")) { progress in
                if progress.bytesReceived > 0 { session.invalidate() }
            }
            .start()
        let error = await expectFailure { try await call.response() }
        #expect(error?.code == .cancelled)
        let refused = await expectFailure { try await session.get(nginx.url("small.json")).response() }
        #expect(refused?.code == .invalidRequest)
    }

    @Test(arguments: allEngines) func dataURLs(engine: Session.Engine) async throws {
        let text = try await testSession(engine: engine).get("data:text/plain;charset=utf-8,hot%20potato").asString().content
        #expect(text == "hot potato")
    }

    @Test(arguments: allEngines) func parsingOptionsReachTheParserThroughTheChain(engine: Session.Engine) async throws {
        struct Pair: Decodable, Sendable { let a: Int }
        let session = testSession(engine: engine)
        let url = "data:application/json,%7B%22a%22:1,%22a%22:2%7D"   // {"a":1,"a":2}
        #expect(try await session.get(url).asJSON().content == ["a": 2])
        #expect(try await session.get(url).asJSON(parsingOptions: JSONParsingOptions(duplicateKeys: .useFirst)).content == ["a": 1])
        let rejected = await expectFailure {
            try await session.get(url).as(Pair.self, parsingOptions: JSONParsingOptions(duplicateKeys: .reject)).response()
        }
        #expect(rejected?.code == .invalidJSON)
        let deep = "data:application/json,%5B%5B1%5D%5D"                  // [[1]]
        let tooDeep = await expectFailure { try await session.get(deep).asJSON(parsingOptions: JSONParsingOptions(maximumDepth: 1)).response() }
        #expect(tooDeep?.code == .invalidJSON)
    }
}
