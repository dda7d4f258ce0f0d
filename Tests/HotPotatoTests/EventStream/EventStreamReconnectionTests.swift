import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Event streams over connections that drop, on both engines: reconnection with `Last-Event-ID`
/// delivers every event once; it gives up after its attempts, never follows a rejection, and a
/// retry policy never replays events already delivered. Plus the consumer's side: a slow consumer
/// holds the server back, and leaving the loop or cancelling the task ends the transfer.
@Suite struct EventStreamReconnectionTests {
    typealias Stream = ServerSentEventStreamTests

    /// Reconnections without a wait (no floor either): the tests are about what is sent, not when.
    static let promptly = EventStreamReconnection(maximumReconnections: 3, delay: 0, minimumDelay: 0)

    @Test(arguments: allEngines, ["length", "chunked"])
    func everyEventOnceAcrossDroppedConnections(engine: Session.Engine, framing: String) async throws {
        let server = try await TestServers.fault()
        // Three events a connection, then half of the next and a drop: the half is discarded, and
        // each reconnection asks for what follows the last complete event. `retry: 5` (ms) is
        // raised to the floor; the waits are a virtual clock's.
        let url = server.url("/events?count=20&perConnection=3&retry=5&chunk=11&framing=\(framing)")
        let clock = VirtualEventStreamClock()
        let stream = testSession(engine: engine).get(url)
            .streamEvents(decoding: Stream.Tick.self, reconnection: EventStreamReconnection(maximumReconnections: 6))
            .reconnecting(by: clock)
        let (ticks, error) = await Stream.collect(stream)
        #expect(error == nil)
        #expect(ticks == Stream.ticks(1...20))
        #expect(clock.waits == [1, 2, 4, 8, 16, 30])
    }

    @Test(arguments: allEngines) func givesUpAfterItsAttemptsWithTheLastError(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        // No connection delivers an event: the first and three reconnections, then the error.
        let url = server.url("/events?count=5&perConnection=0")
        let (events, error) = await Stream.collect(testSession(engine: engine).get(url).streamEvents(reconnection: Self.promptly))
        #expect(events.isEmpty)
        let code = try #require(error?.code)
        #expect(EventStreamReconnection.reconnectableCodes.contains(code))
        #expect(error?.attempts == 4)
    }

    @Test(arguments: allEngines) func aNormalEndReconnectsOnlyWhenAsked(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let url = server.url("/events?count=3")
        // As EventSource: the server ending the body is not the end; with nothing more to send
        // (Last-Event-ID 3 of 3), the reconnections deliver nothing, and the attempts run out.
        let (events, error) = await Stream.collect(testSession(engine: engine).get(url).streamEvents(reconnection: Self.promptly))
        #expect(error == nil)
        #expect(events == Stream.events(1...3))
        var once = Self.promptly
        once.reconnectsAfterEnd = false
        let (onlyThese, noError) = await Stream.collect(testSession(engine: engine).get(url).streamEvents(reconnection: once))
        #expect(noError == nil)
        #expect(onlyThese == Stream.events(1...3))
    }

    @Test(arguments: allEngines) func aRejectionIsNeverRetriedByReconnecting(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let (events, error) = await Stream.collect(
            testSession(engine: engine).get(server.url("/events?status=403")).streamEvents(reconnection: Self.promptly))
        #expect(events.isEmpty)
        #expect(error?.code == .unacceptableStatus)
        #expect(error?.attempts == nil)
    }

    @Test(arguments: allEngines) func aRetryPolicyNeverReplaysDeliveredEvents(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        // A truncated body is transient for the policy, but the stream has handed events over:
        // another attempt would hand them over again, so there is none.
        let session = testSession(engine: engine) { $0.retryPolicy = RetryPolicy(maximumAttempts: 4, initialDelay: 0, jitter: 0) }
        let (events, error) = await Stream.collect(session.get(server.url("/events?count=10&perConnection=3")).streamEvents())
        #expect(events == Stream.events(1...3))
        #expect(error?.attempts == 1)
    }

    @Test(arguments: allEngines) func leavingTheLoopStopsTheTransfer(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        // 2 000 events, of which the server sends 20 and holds the rest until the client goes away
        // (or 60 s pass), noting that it went.
        let held = Data((1...20).map { FaultServer.event($0) }.joined().utf8).count
        let tag = "sse-stop-\(engine)-\(UUID().uuidString)"
        let url = server.url("/events?count=2000&chunk=600&holdAt=\(held)&gate=\(tag)&holdSeconds=60&abandon=\(tag)")
        let session = testSession(engine: engine, timeout: 120)
        var taken = 0
        for try await _ in session.get(url).streamEvents(reconnection: Self.promptly, bufferSize: 2) {
            taken += 1
            if taken == 15 { break }
        }
        #expect(taken == 15)
        let sent = await FaultServer.waitForAbandonment(tag, seconds: 90)
        #expect(sent == held, "the server had sent \(sent.map(String.init) ?? "everything") when the client went away")
        #expect(!FaultServer.gateTimedOut(tag), "the client was still connected after 60 s")
    }

    @Test(arguments: allEngines) func cancellingTheTaskEndsTheStream(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let url = server.url("/events?count=1000&chunk=100&delayMs=100")
        let session = testSession(engine: engine)
        let task = Task {
            var count = 0
            for try await _ in session.get(url).streamEvents(reconnection: Self.promptly) { count += 1 }
            return count
        }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        let result = await task.result
        guard case .failure(let error as HotPotatoError) = result else {
            Issue.record("expected a cancellation, got \(result)")
            return
        }
        #expect(error.code == .cancelled)
    }

    @Test func aSlowConsumerHoldsTheServerBackOnTheCurlEngine() async throws {
        guard Session.Engine.curl.isAvailable else { return }
        let server = try await TestServers.fault()
        // 10 000 events of about 4 KiB: 40 MB. The consumer takes one and then waits a second:
        // libcurl stops reading, and the server can have sent only what the socket buffers,
        // libcurl's buffer and a few events hold — far from the whole body, which a transfer
        // without backpressure would have taken in well within that second. (With 20 MB, a
        // loaded parallel run saw 10.4 MB sent: the kernel had grown both sockets' buffers.)
        let tag = "sse-slow-\(UUID().uuidString)"
        let url = server.url("/events?count=10000&pad=4000&chunk=16384&track=\(tag)")
        let total = Data((1...10000).map { FaultServer.event($0, pad: 4000) }.joined().utf8).count
        var iterator = testSession(engine: .curl).get(url).streamEvents(bufferSize: 4).makeAsyncIterator()
        #expect(try await iterator.next()?.id == "1")
        try await Task.sleep(for: .seconds(1))
        let sent = FaultServer.bytesSent(tag) ?? 0
        #expect(sent < total / 2, "the server sent \(sent) of \(total) bytes to a consumer that took one event")
        var seen = 1
        while let event = try await iterator.next() {
            seen += 1
            #expect(event.id == String(seen))
        }
        #expect(seen == 10000)
    }

    @Test func aSlowConsumerOnURLSessionGetsEveryEventInOrder() async throws {
        let server = try await TestServers.fault()
        // URLSession cannot hold the server back: the stream sets the bytes aside (memory, then
        // disk) and the consumer parses them as it goes.
        let stream = testSession(engine: .urlSession).get(server.url("/events?count=400&pad=2000&chunk=4096"))
            .streamEvents(bufferSize: 2)
        var seen = 0
        for try await event in stream {
            seen += 1
            #expect(event.id == String(seen))
            if seen % 50 == 0 { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(seen == 400)
    }
}
