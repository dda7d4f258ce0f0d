#if canImport(Glibc)
import Foundation
import Glibc
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// No child process inherits a connection of HotPotato's: a process the application spawns
/// while a transfer runs (with a plain `fork` and `exec`, as `SpawnedChild` does) must not keep
/// the connection open, or a cancelled transfer's server never sees it close.
@Suite struct CloseOnExecTests {
    @Test(arguments: allEngines) func aChildSpawnedMidTransferHoldsNoConnection(engine: Session.Engine) async throws {
        let server = try HoldingServer()
        let headSeen = Locked(false)
        let call = testSession(engine: engine).get(server.url)
            .onHead { _ in headSeen.withLock { $0 = true } }
            .discardResponseContent()
            .start()
        #expect(await server.waitUntilServed(seconds: 30))
        #expect(await eventually(seconds: 30) { headSeen.withLock { $0 } }, "the head never arrived")
        let connections = tcpConnectionInodes(toPort: server.port)
        #expect(!connections.isEmpty, "no connection to the server was found in /proc/net/tcp")

        let child = try SpawnedChild.spawn(["/bin/sleep", "60"], inheriting: true)
        defer { child.kill() }
        let inherited = Set(child.descriptors().values).intersection(connections)
        #expect(inherited.isEmpty, "the child inherited the connection: \(inherited)")

        call.cancel()
        #expect(await server.waitUntilClosed(seconds: 20), "the server never saw the cancelled transfer's connection close")
        let error = await expectFailure { _ = try await call.response() }
        #expect(error?.code == .cancelled)
    }
}

/// Polls `condition` every 20 ms for at most `seconds`.
func eventually(seconds: TimeInterval, _ condition: @escaping @Sendable () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return condition()
}
#endif
