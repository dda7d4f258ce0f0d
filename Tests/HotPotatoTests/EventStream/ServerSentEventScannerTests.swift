import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// The event-stream parser against the WHATWG rules, fed whole, at every split offset, in three
/// pieces, and byte by byte: the events never depend on the chunking.
@Suite struct ServerSentEventScannerTests {
    static func parse(_ chunks: [Data], maximumEventSize: Int = 1 << 20) throws -> [ServerSentEvent] {
        var parser = ServerSentEventScanner(maximumEventSize: maximumEventSize)
        var events: [ServerSentEvent] = []
        for chunk in chunks { try parser.feed(chunk) { event, _ in events.append(event) } }
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

    @Test func theRetryFieldInSecondsToo() {
        #expect(Self.event("x", retry: 2500).retryInterval == 2.5)
        #expect(Self.event("x").retryInterval == nil)
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
        var parser = ServerSentEventScanner()
        var events: [ServerSentEvent] = []
        try parser.feed(Data("retry: 10x\nretry: -5\nretry:\nid: a\ndata: 1\n\nretry: 99999999999999999999999\ndata: 2\n\n".utf8)) {
            event, _ in events.append(event)
        }
        #expect(events == [Self.event("1", id: "a"), Self.event("2", id: "a", retry: Int.max)])
        #expect(parser.reconnectionTime == Int.max)
        #expect(parser.lastEventID == "a")
    }

    /// A comment is skipped as it is read: one longer than the limit fails nothing, in any chunking.
    @Test func aCommentLongerThanTheLimitIsSkipped() throws {
        let comment = ":" + String(repeating: "keep-alive ", count: 300)
        let stream = Data("\(comment)\ndata: one\n\(comment)\r\n\ndata: two\n\n".utf8)
        let expected = [Self.event("one"), Self.event("two")]
        #expect(try Self.parse([stream], maximumEventSize: 100) == expected)
        #expect(try Self.parse(stream.map { Data([$0]) }, maximumEventSize: 100) == expected)
        #expect(try Self.parse([Data([0xEF, 0xBB, 0xBF]) + stream], maximumEventSize: 100) == expected, "after a byte-order mark")
        // A field line is still bounded.
        let error = expectFailure { try Self.parse([Data("data: \(comment)\n\n".utf8)], maximumEventSize: 100) }
        #expect(error?.code == .bodyTooLarge)
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

    @Test(arguments: Chunking.allCases)
    func everyFieldAnEventHoldsCountsAgainstTheLimit(chunking: Chunking) throws {
        let field = String(repeating: "f", count: 400)
        func parse(_ text: String) throws -> [ServerSentEvent] {
            try Self.parse(chunking.split(Data(text.utf8)), maximumEventSize: 1000)
        }
        // Each line and the data alone are under the limit of 1 000; what the event holds is not.
        for text in ["id: \(field)\nevent: \(field)\ndata: \(field)\n\n", "event: \(field)\ndata: \(field)\ndata: \(field)\n\n",
                     "id: \(field)\nevent: \(field)\nevent: \(field)\ndata: \(field)\n\n"] {
            let error = expectFailure { try parse(text) }
            #expect(error?.code == .bodyTooLarge, "\(text.prefix(12))")
            #expect((error?.byteCount ?? 0) > 1000)
        }
        // A value replaced is no longer held; an event's type is forgotten after it.
        #expect(try parse("event: \(field)\nevent: \(field)\ndata: x\n\nevent: \(field)\ndata: \(field)\n\n").count == 2)
        // The last event ID is held until another replaces it: it counts against later events too.
        let big = String(repeating: "i", count: 700)
        #expect(expectFailure { try parse("id: \(big)\ndata: a\n\ndata: \(field)\n\n") }?.code == .bodyTooLarge)
        #expect(try parse("id: \(big)\ndata: a\n\nid: 2\ndata: \(field)\n\n").map(\.id) == [big, "2"])
    }

    @Test func eachEventSaysWhereItsBlockBeganInEveryChunking() throws {
        // "data: a\r\n" is bytes 0-8, the blank "\r\n" 9-10; the next block (a comment, then
        // data) begins at 11; the third after the blank line at 23.
        let stream = Data("data: a\r\n\r\n: c\ndata: b\n\ndata: c\r\r".utf8)
        func offsets(_ chunks: [Data]) throws -> [Int64] {
            var scanner = ServerSentEventScanner()
            var offsets: [Int64] = []
            for chunk in chunks { try scanner.feed(chunk) { _, offset in offsets.append(offset) } }
            return offsets
        }
        for cut in 0...stream.count {
            #expect(try offsets([Data(stream.prefix(cut)), Data(stream.dropFirst(cut))]) == [0, 11, 24], "cut at \(cut)")
        }
        #expect(try offsets(stream.map { Data([$0]) }) == [0, 11, 24])
    }

    @Test func theIDAReconnectionSendsIsTheOneOfTheLastCompleteBlock() throws {
        var scanner = ServerSentEventScanner(lastEventID: "earlier")
        #expect(scanner.committedEventID == "earlier")
        try scanner.feed(Data("id: 1\ndata: a\n\nid: 2\ndata: b".utf8)) { _, _ in }
        // The block with id 2 was cut off: its id is in the buffer, not yet the stream's.
        #expect(scanner.lastEventID == "2")
        #expect(scanner.committedEventID == "1")
        // A blank line commits the buffer even when its block dispatches nothing.
        try scanner.feed(Data("\nid: 3\n\n".utf8)) { _, _ in }
        #expect(scanner.committedEventID == "3")
    }

    @Test func anEventTooLargeSaysWhereItBegan() throws {
        let big = String(repeating: "x", count: 600)
        let error = expectFailure {
            try Self.parse([Data("data: small\n\ndata: \(big)\ndata: \(big)\n\n".utf8)], maximumEventSize: 1000)
        }
        #expect(error?.byteOffset == 13)
    }
}
