import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// `streamEvents()` and `streamEvents(decoding:)` against the fault server's event streams on
/// 127.0.0.1, on both engines: every event once and in order whatever the framing, line ends and
/// chunking (down to a byte at a time); the end marker; the gate; the errors; stopping early.
@Suite struct ServerSentEventStreamTests {
    struct Tick: Decodable, Sendable, Equatable {
        let index: Int
        let name: String
    }

    static func ticks(_ range: ClosedRange<Int>) -> [Tick] { range.map { Tick(index: $0, name: "event \($0)") } }

    static func events(_ range: ClosedRange<Int>) -> [ServerSentEvent] {
        range.map { ServerSentEvent(type: "tick", data: "{\"index\":\($0),\n\"name\":\"event \($0)\"}", id: String($0)) }
    }

    /// Collects a stream: the elements delivered, and the error that ended it.
    static func collect<Element>(_ stream: ServerSentEventStream<Element>) async -> (elements: [Element], error: HotPotatoError?) {
        var elements: [Element] = []
        do {
            for try await element in stream { elements.append(element) }
            return (elements, nil)
        } catch {
            return (elements, error)
        }
    }

    @Test(arguments: allEngines) func eventsArriveInOrder(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let (events, error) = await Self.collect(testSession(engine: engine).get(server.url("/events?count=300")).streamEvents())
        #expect(error == nil)
        #expect(events == Self.events(1...300))
    }

    /// Events many times larger than the libcurl engine's receive buffer for an event stream
    /// (16 KiB) arrive whole, each over many reads.
    @Test(arguments: allEngines) func eventsLargerThanTheReceiveBufferArriveWhole(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let pad = 100_000
        #expect(pad > CurlTransfer.smallReceiveBufferSize * 5)
        let stream = testSession(engine: engine).get(server.url("/events?count=30&pad=\(pad)&framing=chunked"))
            .streamEvents(decoding: Tick.self)
        let (ticks, error) = await Self.collect(stream)
        #expect(error == nil)
        #expect(ticks.map(\.index) == Array(1...30))
        // The padding is whitespace inside each event's JSON data, after the name.
        #expect(ticks.allSatisfy { $0.name == "event \($0.index)" })
    }

    @Test(arguments: allEngines, ["lf", "crlf", "cr"])
    func aByteAtATimeWithEveryLineEndAndChunkedFraming(engine: Session.Engine, lineEnd: String) async throws {
        let server = try await TestServers.fault()
        let url = server.url("/events?count=4&chunk=1&framing=chunked&bom=1&retry=2500&lineEnd=\(lineEnd)")
        let (events, error) = await Self.collect(testSession(engine: engine).get(url).streamEvents())
        #expect(error == nil)
        #expect(events == Self.events(1...4))
    }

    @Test(arguments: allEngines) func decodedEventsUpToTheEndMarker(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        // After `data: [DONE]` the server keeps the body open: only the client leaving ends it.
        let tag = "done-\(engine)-\(UUID().uuidString)"
        let session = testSession(engine: engine, timeout: 60)
        let stream = session.get(server.url("/events?count=25&done=1&framing=chunked&abandon=\(tag)"))
            .streamEvents(decoding: Tick.self)
        let (ticks, error) = await Self.collect(stream)
        #expect(error == nil)
        #expect(ticks == Self.ticks(1...25))
        #expect(await FaultServer.waitForAbandonment(tag, seconds: 20) != nil, "the connection stayed open after the end marker")
    }

    @Test(arguments: allEngines) func withoutAnEndMarkerTheMarkerIsAnEvent(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let stream = testSession(engine: engine).get(server.url("/events?count=2&done=1")).streamEvents(endMarker: "[DONE]")
        let (events, error) = await Self.collect(stream)
        #expect(error == nil)
        #expect(events == Self.events(1...2))
        // The raw stream keeps the marker as an event when told of no marker (and then waits for
        // the body, which the server holds open): take three and leave.
        var raw: [ServerSentEvent] = []
        for try await event in testSession(engine: engine).get(server.url("/events?count=2&done=1")).streamEvents() {
            raw.append(event)
            if raw.count == 3 { break }
        }
        #expect(raw.last?.data == "[DONE]")
        #expect(raw.last?.id == "2")
    }

    @Test(arguments: allEngines) func anUnauthorizedStreamIsAnErrorWithTheServersMessage(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let (ticks, error) = await Self.collect(
            testSession(engine: engine).get(server.url("/events?status=401")).streamEvents(decoding: Tick.self))
        #expect(ticks.isEmpty)
        #expect(error?.code == .unacceptableStatus)
        #expect(error?.status == 401)
        #expect(error?.serverMessage == "token expired")
        let (events, wrongType) = await Self.collect(
            testSession(engine: engine).get(server.url("/events?type=application/json")).streamEvents())
        #expect(events.isEmpty)
        #expect(wrongType?.code == .unacceptableContentType)
    }

    @Test(arguments: allEngines) func anEventThatIsNotJSONEndsTheStreamAfterTheOnesBefore(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let (ticks, error) = await Self.collect(
            testSession(engine: engine).get(server.url("/events?count=6&bad=4&chunk=7")).streamEvents(decoding: Tick.self))
        #expect(ticks == Self.ticks(1...3))
        #expect(error?.code == .invalidJSON)
        #expect(error?.elementIndex == 3)
        #expect(error?.intermediate?.text == "{\"index\":4,\n\"name\":}")
        let start = Data(Self.events(1...3).indices.map { FaultServer.event($0 + 1) }.joined().utf8).count
        #expect(error?.byteOffset == Int64(start), "where event 4's block began")
        #expect(error?.status == 200)
    }

    @Test(arguments: allEngines) func anEventThatDoesNotDecodeSaysWhich(engine: Session.Engine) async throws {
        struct Strict: Decodable, Sendable { let index: Int; let missing: String }
        let server = try await TestServers.fault()
        let (values, error) = await Self.collect(
            testSession(engine: engine).get(server.url("/events?count=3")).streamEvents(decoding: Strict.self))
        #expect(values.isEmpty)
        #expect(error?.code == .decodingFailed)
        #expect(error?.elementIndex == 0)
        #expect(error?.underlying is DecodingError)
        #expect(error?.intermediate?.text.contains("\"index\":1") == true)
    }

    @Test(arguments: allEngines) func anEventOverTheLimitFails(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let (events, error) = await Self.collect(
            testSession(engine: engine).get(server.url("/events?count=3&pad=3000")).streamEvents(maximumEventSize: 2_000))
        #expect(events.isEmpty)
        #expect(error?.code == .bodyTooLarge)
        #expect(error?.limit == 2_000)
        #expect(error?.elementIndex == 0)
    }

    @Test(arguments: allEngines) func aDroppedConnectionEndsTheStreamWithItsError(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        for framing in ["length", "chunked"] {
            let (events, error) = await Self.collect(
                testSession(engine: engine).get(server.url("/events?count=10&perConnection=3&framing=\(framing)")).streamEvents())
            #expect(events == Self.events(1...3), "\(framing)")
            let code = try #require(error?.code)
            #expect(EventStreamReconnection.reconnectableCodes.contains(code), "\(framing): \(code)")
        }
    }

    @Test(arguments: allEngines) func theHandlerOnItsOwnOverTheNetwork(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let seen = Locked([ServerSentEvent]())
        let summary = try await testSession(engine: engine).get(server.url("/events?count=12&chunk=5&framing=chunked"))
            .handled(by: EventStreamParser { event in seen.withLock { $0.append(event) } })
            .content
        #expect(seen.withLock { $0 } == Self.events(1...12))
        #expect(summary.lastEventID == "12")
    }
}
