import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// The event-stream parser against the WHATWG rules, fed whole, at every split offset, in three
/// pieces, and byte by byte: the events never depend on the chunking.
@Suite struct ServerSentEventParserTests {
    static func parse(_ chunks: [Data], maximumEventSize: Int = 1 << 20) throws -> [ServerSentEvent] {
        var parser = ServerSentEventParser(maximumEventSize: maximumEventSize)
        var events: [ServerSentEvent] = []
        for chunk in chunks { try parser.feed(chunk) { events.append($0) } }
        parser.finish()
        return events
    }

    /// Every way of cutting `stream` in two, every way in three (coarsely), and byte by byte, must
    /// give `expected`.
    static func expectEveryChunking(_ stream: Data, _ expected: [ServerSentEvent], sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try parse([stream]) == expected, sourceLocation: sourceLocation)
        for cut in 0...stream.count {
            let parts = [stream.prefix(cut), stream.dropFirst(cut)].map { Data($0) }
            #expect(try parse(parts) == expected, "cut at \(cut)", sourceLocation: sourceLocation)
        }
        for first in stride(from: 0, through: stream.count, by: 3) {
            for second in stride(from: first, through: stream.count, by: 5) {
                let parts = [stream[..<first], stream[first..<second], stream[second...]].map { Data($0) }
                #expect(try parse(parts) == expected, "cuts at \(first), \(second)", sourceLocation: sourceLocation)
            }
        }
        #expect(try parse(stream.map { Data([$0]) }) == expected, "byte by byte", sourceLocation: sourceLocation)
    }

    static func event(_ data: String, type: String = "message", id: String = "", retry: Int? = nil) -> ServerSentEvent {
        ServerSentEvent(type: type, data: data, id: id, retry: retry)
    }

    @Test func theStandardsFieldsInEveryChunking() throws {
        let stream = Data((
            "\u{FEFF}: a comment first\r\n"
            + "data: first\n\n"
            + "event: update\r\ndata:no space\r\ndata:  two spaces\r\nid: 7\r\n\r\n"
            + "data\rdata:\r\rretry: 2500\ndata: Grüße 🥔\n\n"
            + "id: with\u{0}nul\ndata: id kept\n\n"
            + "event: ignored without data\nid\n\n"
            + "unknown: field\ndata: after\n: comment\nevent\n\n"
            + "data: never dispatched, the body ends first"
        ).utf8)
        try Self.expectEveryChunking(stream, [
            Self.event("first"),
            Self.event("no space\n two spaces", type: "update", id: "7"),
            Self.event("\n", id: "7"),
            Self.event("Grüße 🥔", id: "7", retry: 2500),
            Self.event("id kept", id: "7"),
            // `id` alone (no colon) sets the last event ID to the empty string.
            Self.event("after"),
        ])
    }

    @Test func lineEndsOfEveryKindAndTheirCombinations() throws {
        // CR CR is two line ends (a blank line); CR LF is one; LF CR is two.
        let stream = Data("data: a\r\rdata: b\r\n\r\ndata: c\n\rdata: d\n\n".utf8)
        try Self.expectEveryChunking(stream, [Self.event("a"), Self.event("b"), Self.event("c"), Self.event("d")])
    }

    @Test func onlyALeadingByteOrderMarkIsDropped() throws {
        try Self.expectEveryChunking(Data("\u{FEFF}data: x\n\n".utf8), [Self.event("x")])
        // A second mark is part of the line: its field name is then not `data`.
        try Self.expectEveryChunking(Data("\u{FEFF}\u{FEFF}data: x\n\ndata: y\n\n".utf8), [Self.event("y")])
        // Bytes that start like a mark and are not one stay.
        try Self.expectEveryChunking(Data([0xEF, 0x0A] + Array("data: z\n\n".utf8)), [Self.event("z")])
    }

    @Test func invalidUTF8BecomesReplacementCharacters() throws {
        let stream = Data(Array("data: a".utf8) + [0xFF, 0xC3] + Array("\n\n".utf8))
        try Self.expectEveryChunking(stream, [Self.event("a\u{FFFD}\u{FFFD}")])
    }

    @Test func retryCountsOnlyAsDigitsAndTheIDCarriesOver() throws {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        try parser.feed(Data("retry: 10x\nretry: -5\nretry:\nid: a\ndata: 1\n\nretry: 99999999999999999999999\ndata: 2\n\n".utf8)) {
            events.append($0)
        }
        #expect(events == [Self.event("1", id: "a"), Self.event("2", id: "a", retry: Int.max)])
        #expect(parser.reconnectionTime == Int.max)
        #expect(parser.lastEventID == "a")
    }

    @Test func anEventLargerThanTheLimitFails() throws {
        let big = String(repeating: "x", count: 600)
        let error = expectFailure { try Self.parse([Data("data: \(big)\ndata: \(big)\n\n".utf8)], maximumEventSize: 1000) }
        #expect(error?.code == .bodyTooLarge)
        #expect(error?.limit == 1000)
        // Many events of the limit's size each are fine: the bound is per event.
        let many = Data(String(repeating: "data: \(big)\n\n", count: 50).utf8)
        #expect(try Self.parse([many], maximumEventSize: 1000).count == 50)
    }
}
