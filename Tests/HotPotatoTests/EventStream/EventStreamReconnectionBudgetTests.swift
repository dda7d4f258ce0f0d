import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Reconnection's floor, backoff and budget, on both engines, against servers that drop the
/// stream after every event or ask for `retry: 0`: the attempts are counted since the last
/// connection that stayed up (events do not reset them), the waits grow and never go under the
/// floor, and the time budget ends the stream. The waits are read from a virtual clock (the
/// stream's own computation, no real waits); connections are counted by the server. One test
/// runs in real time, and bounds from above what a window of it can hold.
@Suite struct EventStreamReconnectionBudgetTests {
    typealias Stream = ServerSentEventStreamTests
    typealias Model = EventStreamProcessingModelTests

    @Test(arguments: allEngines) func aServerDroppingAfterEveryEventSpendsTheAttempts(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let tag = Model.tag("drops", engine)
        let clock = VirtualEventStreamClock()
        let stream = testSession(engine: engine).get(server.url("/events?count=1000&perConnection=1&record=\(tag)"))
            .streamEvents(reconnection: EventStreamReconnection(maximumReconnections: 3)).reconnecting(by: clock)
        let (events, error) = await Stream.collect(stream)
        // Each connection delivered an event, and none stayed up: three reconnections, no more.
        #expect(events == Stream.events(1...4))
        let code = try #require(error?.code)
        #expect(EventStreamReconnection.reconnectableCodes.contains(code))
        #expect(error?.attempts == 4)
        #expect(Model.lastEventIDs(tag) == [nil, "1", "2", "3"])
        #expect(clock.waits == [3, 6, 12], "the default delay, doubling")
    }

    @Test(arguments: allEngines) func theTimeBudgetEndsTheReconnections(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let tag = Model.tag("budget", engine)
        let clock = VirtualEventStreamClock()
        let policy = EventStreamReconnection(maximumReconnections: 1000, maximumElapsedTime: 60)
        let stream = testSession(engine: engine).get(server.url("/events?count=1000&perConnection=1&record=\(tag)"))
            .streamEvents(reconnection: policy).reconnecting(by: clock)
        let (events, error) = await Stream.collect(stream)
        // 3 + 6 + 12 + 24 = 45 s; the next wait, 30 s (the cap), would start after 60.
        #expect(clock.waits == [3, 6, 12, 24])
        #expect(events.count == 5)
        #expect(error?.attempts == 5)
        #expect(FaultServer.eventRequests(tag).count == 5)
    }

    @Test(arguments: allEngines) func retryZeroStormsAreBoundedByTheFloorAndTheAttempts(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let tag = Model.tag("storm", engine)
        // The most jitter the draw allows: every wait as short as it can be.
        let clock = VirtualEventStreamClock(random: 0.999)
        let stream = testSession(engine: engine).get(server.url("/events?count=100000&perConnection=1&retry=0&record=\(tag)"))
            .streamEvents(reconnection: EventStreamReconnection()).reconnecting(by: clock)
        let (events, _) = await Stream.collect(stream)
        #expect(events.count == 6)
        #expect(FaultServer.eventRequests(tag).count == 6, "the default 5 attempts")
        let waits = clock.waits
        #expect(waits.count == 5)
        #expect(waits.allSatisfy { $0 >= 1 }, "retry: 0 is raised to the floor of 1 s: \(waits)")
        #expect(zip(waits, waits.dropFirst()).allSatisfy { $0 <= $1 }, "the waits grow: \(waits)")
        #expect(waits.last ?? 0 > 8, "\(waits)")
    }

    @Test(arguments: allEngines) func aConnectionThatStaysUpResetsTheBudgetAndTheBackoff(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let url = server.url("/events?count=8&perConnection=2&endEach=1&finalStatus=204")
        let policy = EventStreamReconnection(maximumReconnections: 1)
        // A clock on which every connection stays up 100 s: each resets the count and the wait.
        let patient = VirtualEventStreamClock(tick: 100)
        let (all, error) = await Stream.collect(testSession(engine: engine).get(url).streamEvents(reconnection: policy).reconnecting(by: patient))
        #expect(all.map(\.id) == (1...8).map(String.init))
        #expect(error == nil)
        #expect(patient.waits == [3, 3, 3, 3])
        // Where none stays up, the one attempt is soon spent.
        let hasty = VirtualEventStreamClock()
        let (some, noError) = await Stream.collect(testSession(engine: engine).get(url).streamEvents(reconnection: policy).reconnecting(by: hasty))
        #expect(some.map(\.id) == ["1", "2", "3", "4"])
        #expect(noError == nil, "the last connection ended normally")
        #expect(hasty.waits == [3])
    }

    @Test(arguments: allEngines) func aWindowOfRealTimeHoldsFewConnections(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let tag = Model.tag("window", engine)
        // Waits of at least 0.05, 0.05, 0.1, then 0.2 s (the 0.4 s cap, less half of it at most):
        // at most 17 of them fit in 3 s, however fast the machine. Without the backoff, and with
        // every event resetting the count, it was one connection every 0.05 s or so.
        let policy = EventStreamReconnection(maximumReconnections: 1000, delay: 0.05, maximumDelay: 0.4, minimumDelay: 0.05)
        let url = server.url("/events?count=100000&perConnection=1&record=\(tag)")
        let task = Task {
            for try await _ in testSession(engine: engine).get(url).streamEvents(reconnection: policy) {}
        }
        // The window starts once the stream has reconnected at all, however long a busy machine
        // took to get there; only an upper bound is asserted within it.
        let reconnected = await eventually(seconds: 60) { FaultServer.eventRequests(tag).count >= 2 }
        let before = FaultServer.eventRequests(tag).count
        try await Task.sleep(for: .seconds(3))
        let connections = FaultServer.eventRequests(tag).count - before
        task.cancel()
        _ = await task.result
        #expect(reconnected, "the stream never reconnected")
        #expect(connections <= 18, "\(connections) connections in 3 s")
    }
}
