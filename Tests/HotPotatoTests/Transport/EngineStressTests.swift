import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// What the engines must survive, many times over: transfers cancelled at random moments, pauses
/// racing cancels, handlers that block for seconds beside transfers that must go on, sessions
/// invalidated with transfers in flight. Every call completes exactly once, nothing hangs (each
/// round has a deadline), and the random choices come from a printed seed.
@Suite struct EngineStressTests {
    /// How `call` ended: "complete", or its error's code.
    static func outcome<Content: Sendable>(of call: Call<Content>) async -> String {
        do {
            _ = try await call.response()
            return "complete"
        } catch {
            return error.code.description
        }
    }

    static let deadline: TimeInterval = 120

    /// A seed for this run's random choices, printed so that a failure can be replayed with
    /// `HOTPOTATO_STRESS_SEED`.
    static func seed(_ name: String) -> UInt64 {
        let seed = ProcessInfo.processInfo.environment["HOTPOTATO_STRESS_SEED"].flatMap(UInt64.init)
            ?? UInt64.random(in: 1...UInt64.max)
        print("EngineStressTests.\(name): seed \(seed)")
        return seed
    }

    /// Hundreds of transfers, each cancelled after a random delay (some before they start, some
    /// mid-body, some after they completed): each call completes once, cancelled or whole.
    @Test(arguments: allEngines) func transfersCancelledAtRandomMomentsAllComplete(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let session = testSession(engine: engine, timeout: 60) { $0.maximumConnectionsPerHost = 64 }
        var random = SplitMix64(seed: Self.seed("randomCancels-\(engine)"))
        let delays = (0..<300).map { _ in Int(random.next() % 60_000) }
        let outcomes = Locked([String: Int]())
        let finished = await finishes(within: Self.deadline) {
            await withTaskGroup(of: Void.self) { group in
                for delay in delays {
                    group.addTask {
                        let call = session.get(server.url("/drip?bytes=8000&chunk=1000&delayMs=2"))
                            .discardResponseContent().start()
                        try? await Task.sleep(nanoseconds: UInt64(delay) * 1000)
                        call.cancel()
                        let outcome = await Self.outcome(of: call)
                        outcomes.withLock { $0[outcome, default: 0] += 1 }
                    }
                }
            }
        }
        #expect(finished, "calls still running after \(Self.deadline) s: \(outcomes.withLock { $0 })")
        let tally = outcomes.withLock { $0 }
        #expect(tally.values.reduce(0, +) == delays.count)
        #expect(Set(tally.keys).isSubset(of: ["complete", "cancelled"]), "\(tally)")
        print("EngineStressTests.randomCancels-\(engine): \(tally)")
    }

    /// Transfers whose handler falls behind (so that they pause) cancelled at random moments,
    /// racing the pause and the resume.
    @Test(arguments: allEngines) func pausedTransfersCancelledAtRandomMomentsAllComplete(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let session = testSession(engine: engine, timeout: 60)
        var random = SplitMix64(seed: Self.seed("pausedCancels-\(engine)"))
        let delays = (0..<40).map { _ in Int(random.next() % 400) }
        let outcomes = Locked([String: Int]())
        let finished = await finishes(within: Self.deadline) {
            await withTaskGroup(of: Void.self) { group in
                for delay in delays {
                    group.addTask {
                        // 8 MiB behind a handler that naps 2 ms per chunk: the handoff fills and
                        // the transfer pauses within a few milliseconds.
                        let call = session.get(nginx.url("medium.bin")).handled(by: NappingCounter(nap: 0.002)).start()
                        try? await Task.sleep(for: .milliseconds(delay))
                        call.cancel()
                        let outcome = await Self.outcome(of: call)
                        outcomes.withLock { $0[outcome, default: 0] += 1 }
                    }
                }
            }
        }
        #expect(finished, "calls still running after \(Self.deadline) s: \(outcomes.withLock { $0 })")
        let tally = outcomes.withLock { $0 }
        #expect(tally.values.reduce(0, +) == delays.count)
        #expect(Set(tally.keys).isSubset(of: ["complete", "cancelled"]), "\(tally)")
    }

    /// A handler that blocks holds back only its own transfer: while it waits at its gate, fifty
    /// other requests of the same session complete; then it completes too. The libcurl engine's
    /// alone: URLSession delivers every transfer of a session on one serial queue.
    @Test func aBlockedHandlerHoldsBackOnlyItsOwnTransfer() async throws {
        let engine = Session.Engine.curl
        try #require(engine.isAvailable)
        let nginx = try await TestServers.nginx()
        let session = testSession(engine: engine, timeout: 120)
        let reached = TestGate()
        let release = TestGate()
        defer { release.open() }
        let blocked = session.get(nginx.url("medium.bin"))
            .handled(by: GatedCounter(head: Locked(nil), reached: reached, gate: release))
            .start()
        #expect(try await offThePool { reached.wait(seconds: 60) }, "the blocked handler never got its first chunk")
        let others = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<50 {
                group.addTask { try await session.get(nginx.url("small.json")).asData().content.count }
            }
            return try await group.reduce(0) { $0 + ($1 > 0 ? 1 : 0) }
        }
        #expect(others == 50)
        release.open()
        let received = try await blocked.response().content
        #expect(received == Int64(NginxServer.mediumFileSize))
    }

    /// Invalidating a session with transfers in flight (some paused behind a slow handler, some
    /// waiting for a connection) completes every call, cancelled, promptly.
    @Test(arguments: allEngines) func invalidatingWithTransfersInFlightCompletesEveryCall(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let nginx = try await TestServers.nginx()
        let session = testSession(engine: engine, timeout: 60) { $0.maximumConnectionsPerHost = 4 }
        let calls = (0..<20).map { _ in
            session.get(server.url("/drip?bytes=2000000&chunk=1000&delayMs=20")).discardResponseContent().start()
        }
        let slow = (0..<5).map { _ in session.get(nginx.url("big.bin")).handled(by: NappingCounter(nap: 0.05)).start() }
        try await Task.sleep(for: .milliseconds(300))
        session.invalidate()
        let outcomes = Locked([String: Int]())
        let finished = await finishes(within: 30) {
            for call in calls {
                let outcome = await Self.outcome(of: call)
                outcomes.withLock { $0[outcome, default: 0] += 1 }
            }
            for call in slow {
                let outcome = await Self.outcome(of: call)
                outcomes.withLock { $0[outcome, default: 0] += 1 }
            }
        }
        #expect(finished, "calls still running 30 s after the session was invalidated: \(outcomes.withLock { $0 })")
        #expect(outcomes.withLock { $0["cancelled"] } == 25, "\(outcomes.withLock { $0 })")
        let after = await expectFailure { try await session.get(server.url("/typed")).asData().response() }
        #expect(after?.code == .invalidRequest)
    }
}

/// Counts the body, napping after each chunk: a handler slower than the network.
final class NappingCounter: ContentHandler {
    private let nap: TimeInterval
    private var received: Int64 = 0

    init(nap: TimeInterval) {
        self.nap = nap
    }

    func prepare(for head: ResponseHead) throws {}

    func receive(_ chunk: Data) throws {
        received += Int64(chunk.count)
        Thread.sleep(forTimeInterval: nap)
    }

    func finish() throws -> Int64 { received }

    func cleanUp() {}
}
