import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// The event-stream handler, driven as a transport would drive it, in every chunking: each event
/// reaches the callback (or a subclass) once, in order; the gate, the size limit and a throwing
/// callback fail it as every handler fails.
@Suite struct EventStreamParserTests {
    static let body = Data((
        "\u{FEFF}retry: 1500\r\n\r\n"
            + (1...40).map { FaultServer.event($0, lineEnd: $0 % 3 == 0 ? "\r\n" : $0 % 3 == 1 ? "\n" : "\r") }.joined()
            + "id: 41\ndata: cut off by the end of the body"
    ).utf8)

    static let expected = (1...40).map { index in
        ServerSentEvent(type: "tick", data: "{\"index\":\(index),\n\"name\":\"event \(index)\"}", id: String(index))
    }

    /// Collects events in a subclass, as hotpotato's handlers are extended.
    final class Collector: EventStreamParser {
        var events: [ServerSentEvent] = []
        override func receive(event: ServerSentEvent) throws {
            events.append(event)
        }
    }

    @Test(arguments: Chunking.allCases)
    func everyEventReachesTheCallbackInOrder(chunking: Chunking) throws {
        nonisolated(unsafe) var events: [ServerSentEvent] = []
        let parser = EventStreamParser { events.append($0) }
        let summary = try drive(parser, head: head(contentType: "text/event-stream; charset=utf-8"), body: Self.body, chunking: chunking)
        #expect(events == Self.expected)
        // The block cut off by the end is not an event, and its ID never became the stream's.
        #expect(summary == EventStreamSummary(eventCount: 40, lastEventID: "40", reconnectionTime: 1500))
    }

    @Test(arguments: Chunking.allCases)
    func aSubclassReceivesEachEvent(chunking: Chunking) throws {
        let collector = Collector()
        let summary = try drive(collector, head: head(contentType: "text/event-stream"), body: Self.body, chunking: chunking)
        #expect(collector.events == Self.expected)
        #expect(summary.eventCount == 40)
        #expect(!collector.receivesBorrowedChunks, "a subclass may keep chunks: it gets copies")
        #expect(EventStreamParser().receivesBorrowedChunks)
    }

    @Test func aRejectedResponseKeepsTheServersMessage() throws {
        let error = expectFailure {
            try drive(
                EventStreamParser(), head: head(401, contentType: "application/json"),
                body: Data(#"{"error":{"message":"token expired"}}"#.utf8))
        }
        #expect(error?.code == .unacceptableStatus)
        #expect(error?.serverMessage == "token expired")
        let wrongType = expectFailure {
            try drive(EventStreamParser(), head: head(contentType: "text/html"), body: Data("<p>login</p>".utf8))
        }
        #expect(wrongType?.code == .unacceptableContentType)
    }

    @Test func anEventLargerThanTheLimitFails() throws {
        let body = Data(("data: small\n\n" + "data: " + String(repeating: "x", count: 5_000) + "\n\n").utf8)
        nonisolated(unsafe) var events: [String] = []
        let error = expectFailure {
            try drive(EventStreamParser(maximumEventSize: 1_000) { events.append($0.data) }, head: head(contentType: "text/event-stream"),
                      body: body, chunking: .odd)
        }
        #expect(events == ["small"])
        #expect(error?.code == .bodyTooLarge)
        #expect(error?.limit == 1_000)
        #expect(error?.byteOffset == 13)
        #expect(error?.status == 200)
    }

    @Test func whatTheCallbackThrowsFailsTheResponse() throws {
        struct Stop: Error {}
        nonisolated(unsafe) var seen = 0
        let error = expectFailure {
            try drive(EventStreamParser { _ in
                seen += 1
                if seen == 3 { throw Stop() }
            }, head: head(contentType: "text/event-stream"), body: Self.body, chunking: .sixteenKiB)
        }
        #expect(seen == 3)
        #expect(error?.code == .handlerFailed)
        #expect(error?.underlying is Stop)
    }

    @Test func aContinuedStreamStartsFromTheLastEventID() throws {
        nonisolated(unsafe) var ids: [String] = []
        let summary = try drive(
            EventStreamParser(lastEventID: "7") { ids.append($0.id) }, head: head(contentType: "text/event-stream"),
            body: Data("data: a\n\nid: 8\ndata: b\n\n".utf8))
        #expect(ids == ["7", "8"])
        #expect(summary.lastEventID == "8")
    }

    @Test func decodingAnEventsData() throws {
        struct Tick: Decodable, Equatable { let index: Int; let name: String }
        #expect(try Self.expected[4].decode(Tick.self) == Tick(index: 5, name: "event 5"))
        let notJSON = expectFailure { try ServerSentEvent(data: "[DONE]").decode(Tick.self) }
        #expect(notJSON?.code == .invalidJSON)
        #expect(notJSON?.intermediate?.text == "[DONE]")
        #expect(throws: DecodingError.self) { try ServerSentEvent(data: #"{"index":"five"}"#).decode(Tick.self) }
    }
}
