import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// No request waits behind another host's: long transfers (event streams held open) to one host
/// never hold back a request to another, and past ``Session/Configuration/maximumConnectionsPerHost``
/// only that host's requests wait. On both engines: there is no global cap on either.
@Suite struct ConnectionLimitTests {
    /// An event stream that delivers its first event, then stays open until its gate opens (or
    /// its client leaves, or 60 s pass).
    static func heldStream(_ server: FaultServer, gate: String) -> URL {
        let first = FaultServer.event(1).utf8.count
        return server.url("/events?count=2&holdAt=\(first)&gate=\(gate)&holdSeconds=60")
    }

    /// Opens `count` held streams, each counted in `opened` once its first event arrived; the
    /// tasks iterating them, to cancel.
    static func openStreams(
        _ count: Int, to server: FaultServer, session: Session, tag: String, opened: Locked<Int>
    ) -> [Task<Void, Never>] {
        (0..<count).map { index in
            Task {
                let stream = session.get(heldStream(server, gate: "\(tag)-\(index)")).streamEvents()
                do {
                    for try await _ in stream {
                        opened.withLock { $0 += 1 }
                    }
                } catch {}
            }
        }
    }

    static func closeStreams(_ tasks: [Task<Void, Never>], tag: String) async {
        for index in tasks.indices { FaultServer.openGate("\(tag)-\(index)") }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    /// Forty event streams open to host A — more than the old curl engine's global 32 — and a
    /// request to host B is answered while they stay open.
    @Test(arguments: allEngines) func longStreamsToOneHostNeverHoldBackAnother(engine: Session.Engine) async throws {
        let hostA = try await TestServers.fault()
        let hostB = try await TestServers.faultOnAnotherHost()
        let session = testSession(engine: engine, timeout: 90) { $0.maximumConnectionsPerHost = 64 }
        let tag = "hol-\(engine)-\(UUID().uuidString)"
        let opened = Locked(0)
        let streams = Self.openStreams(40, to: hostA, session: session, tag: tag, opened: opened)
        let allOpen = await eventually(seconds: 60) { opened.withLock { $0 } >= 40 }
        #expect(allOpen, "\(opened.withLock { $0 }) of 40 streams delivered their first event")
        let answer = try await session.get(hostB.url("/typed?type=application/json")).asJSON().content
        #expect(answer["message"] == "typed response")
        await Self.closeStreams(streams, tag: tag)
    }

    /// With host A's two connections taken by open streams, a request to A waits for one of them
    /// while a request to B is answered; the request to A goes as soon as a stream ends.
    @Test(arguments: allEngines) func pastThePerHostLimitOnlyThatHostWaits(engine: Session.Engine) async throws {
        let hostA = try await TestServers.fault()
        let hostB = try await TestServers.faultOnAnotherHost()
        let session = testSession(engine: engine, timeout: 90) { $0.maximumConnectionsPerHost = 2 }
        let tag = "limit-\(engine)-\(UUID().uuidString)"
        let opened = Locked(0)
        let streams = Self.openStreams(2, to: hostA, session: session, tag: tag, opened: opened)
        #expect(await eventually(seconds: 60) { opened.withLock { $0 } >= 2 })

        let waitingDone = Locked(false)
        let waiting = Task {
            let text = try await session.get(hostA.url("/typed?type=application/json")).asJSON().content
            waitingDone.withLock { $0 = true }
            return text
        }
        let other = try await session.get(hostB.url("/typed?type=application/json")).asJSON().content
        #expect(other["message"] == "typed response")
        // Host A has no free connection: its request cannot have been answered.
        #expect(!waitingDone.withLock { $0 }, "a third connection to host A was opened past the limit of 2")

        FaultServer.openGate("\(tag)-0")
        let answer = try await waiting.value
        #expect(answer["message"] == "typed response")
        await Self.closeStreams(streams, tag: tag)
    }
}
