import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// EventSource's processing model, on both engines, against the fault server's event streams:
/// only `200` starts a stream; a stream the server ends is resumed from its last event ID; a
/// `204`, the end marker, or a rejected reconnection ends it for good; the request asks that no
/// cache answer it. The reconnections' waits are the stream's own computation, read from a
/// virtual clock (no real waits); connections are counted by the server.
@Suite struct EventStreamProcessingModelTests {
    typealias Stream = ServerSentEventStreamTests

    static func tag(_ label: String, _ engine: Session.Engine) -> String { "\(label)-\(engine)-\(UUID().uuidString.prefix(8))" }

    static func lastEventIDs(_ tag: String) -> [String?] { FaultServer.eventRequests(tag).map { $0.headers["last-event-id"] } }

    @Test(arguments: allEngines, [210, 299])
    func onlyTwoHundredStartsAStream(engine: Session.Engine, status: Int) async throws {
        let server = try await TestServers.fault()
        let tag = Self.tag("status\(status)", engine)
        let clock = VirtualEventStreamClock()
        let stream = testSession(engine: engine).get(server.url("/events?count=3&status=\(status)&record=\(tag)"))
            .streamEvents(reconnection: EventStreamReconnection()).reconnecting(by: clock)
        let (events, error) = await Stream.collect(stream)
        #expect(events.isEmpty)
        #expect(error?.code == .unacceptableStatus)
        #expect(error?.status == status)
        #expect(FaultServer.eventRequests(tag).count == 1, "a rejection is never reconnected")
        // Accepting the status is the caller's explicit choice.
        let accepted = testSession(engine: engine).get(server.url("/events?count=3&status=\(status)")).accepting(statusCodes: [status])
        let (taken, noError) = await Stream.collect(accepted.streamEvents())
        #expect(taken == Stream.events(1...3) && noError == nil)
    }

    @Test(arguments: allEngines) func aStreamTheServerEndsIsResumedFromItsLastEventID(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let tag = Self.tag("ended", engine)
        // Two events a connection, each body ended normally; once nothing is left, a 204.
        let url = server.url("/events?count=5&perConnection=2&endEach=1&finalStatus=204&retry=250&record=\(tag)")
        let clock = VirtualEventStreamClock()
        let stream = testSession(engine: engine).get(url).streamEvents(reconnection: EventStreamReconnection()).reconnecting(by: clock)
        let (events, error) = await Stream.collect(stream)
        #expect(error == nil)
        #expect(events.map(\.id) == ["1", "2", "3", "4", "5"])
        #expect(Self.lastEventIDs(tag) == [nil, "2", "4", "5"])
        // `retry: 250` is under the floor of 1 s; each connection was short, so the wait grows.
        #expect(clock.waits == [1, 2, 4])
    }

    @Test(arguments: allEngines, ["perConnection=3", "endEach=1&perConnection=3"])
    func aReconnectionAnsweredOtherThan200EndsTheStream(engine: Session.Engine, ending: String) async throws {
        let server = try await TestServers.fault()
        // A retry policy that would retry a 503 four times: it never retries a reconnection.
        let session = testSession(engine: engine) { $0.retryPolicy = RetryPolicy(maximumAttempts: 4, initialDelay: 0, jitter: 0) }
        for (option, code) in [("reconnectStatus=503", HotPotatoError.Code.unacceptableStatus),
                               ("reconnectType=application/json", .unacceptableContentType)] {
            let tag = Self.tag("rejected", engine)
            let clock = VirtualEventStreamClock()
            let stream = session.get(server.url("/events?count=6&\(ending)&\(option)&record=\(tag)"))
                .streamEvents(reconnection: EventStreamReconnection()).reconnecting(by: clock)
            let (events, error) = await Stream.collect(stream)
            #expect(events == Stream.events(1...3), "\(option)")
            #expect(error?.code == code, "\(option)")
            #expect(error?.attempts == 2, "\(option)")
            #expect(Self.lastEventIDs(tag) == [nil, "3"], "\(option)")
        }
    }

    @Test(arguments: allEngines) func a204OrTheEndMarkerIsNeverReconnected(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let session = testSession(engine: engine, timeout: 60)
        let reconnection = EventStreamReconnection(maximumReconnections: 10)
        // A first answer of 204: no events, no error, no second request.
        let stop = Self.tag("204", engine)
        let (none, noError) = await Stream.collect(
            session.get(server.url("/events?status=204&record=\(stop)")).streamEvents(reconnection: reconnection)
                .reconnecting(by: VirtualEventStreamClock()))
        #expect(none.isEmpty && noError == nil)
        #expect(FaultServer.eventRequests(stop).count == 1)
        // A stream that ends, then a 204 to its reconnection.
        let later = Self.tag("later204", engine)
        let (events, error) = await Stream.collect(
            session.get(server.url("/events?count=3&reconnectStatus=204&record=\(later)")).streamEvents(reconnection: reconnection)
                .reconnecting(by: VirtualEventStreamClock()))
        #expect(events == Stream.events(1...3) && error == nil)
        #expect(Self.lastEventIDs(later) == [nil, "3"])
        // `[DONE]`: a language-model answer is never asked for again.
        let done = Self.tag("done", engine)
        let (ticks, doneError) = await Stream.collect(
            session.get(server.url("/events?count=4&done=1&record=\(done)"))
                .streamEvents(decoding: Stream.Tick.self, reconnection: reconnection).reconnecting(by: VirtualEventStreamClock()))
        #expect(ticks == Stream.ticks(1...4) && doneError == nil)
        #expect(FaultServer.eventRequests(done).count == 1)
    }

    @Test(arguments: allEngines) func theRequestAsksForAFreshEventStream(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let tag = Self.tag("headers", engine)
        _ = await Stream.collect(testSession(engine: engine).get(server.url("/events?count=1&record=\(tag)")).streamEvents())
        let sent = try #require(FaultServer.eventRequests(tag).first?.headers)
        #expect(sent["cache-control"] == "no-cache")
        #expect(sent["accept"] == "text/event-stream")
        // The caller's own are kept, and not doubled.
        let own = Self.tag("own", engine)
        _ = await Stream.collect(testSession(engine: engine).get(server.url("/events?count=1&record=\(own)"))
            .header("Cache-Control", "max-age=5").header("Accept", "text/event-stream, */*;q=0.1").streamEvents())
        let kept = try #require(FaultServer.eventRequests(own).first?.headers)
        #expect(kept["cache-control"] == "max-age=5")
        #expect(kept["accept"] == "text/event-stream, */*;q=0.1")
    }

    @Test(arguments: allEngines) func bigIDAndEventFieldsCountAgainstTheSizeLimit(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        // An `id:` and an `event:` of 6 000 bytes each: each line is under the limit of 10 000,
        // the event's data too; what the event holds together is not.
        let (events, error) = await Stream.collect(
            testSession(engine: engine).get(server.url("/events?count=3&fat=6000&chunk=1000")).streamEvents(maximumEventSize: 10_000))
        #expect(events.isEmpty)
        #expect(error?.code == .bodyTooLarge)
        #expect(error?.limit == 10_000)
        #expect(error?.elementIndex == 0)
        #expect((error?.byteCount ?? 0) > 10_000)
        let (fine, noError) = await Stream.collect(
            testSession(engine: engine).get(server.url("/events?count=3&fat=6000")).streamEvents(maximumEventSize: 20_000))
        #expect(fine.count == 3 && noError == nil)
    }
}
