import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Spilling must not change what the handler sees: bytes in order, none lost or repeated.
@Suite(.needsNginx) struct SpillOrderingTests {
    @Test(arguments: allEngines) func slowHandlerWithATinyHighWaterMarkGetsEveryByteInOrder(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let session = testSession(engine: engine) { $0.memoryHighWaterMark = 64 * 1024 }
        let destination = scratch.file("medium.bin")
        let url = try await session.get(nginx.url("medium.bin")).handled(by: SlowFileWriter(destination: destination)).content
        #expect(try await offThePool { try filesAreIdentical(url, nginx.root.appendingPathComponent("medium.bin")) })
    }
}
