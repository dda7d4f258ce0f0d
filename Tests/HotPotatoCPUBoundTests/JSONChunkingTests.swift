import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// However the body is cut into chunks, the parser reads the same value, or fails at the same
/// byte.
@Suite struct JSONChunkingTests {
    static let documents: [String] = [
        #"{"id":12,"name":"Ada \"Countess\" Lovelace","tags":["x","y\\z"],"ok":true,"none":null,"n":-0.5e-3}"#,
        #"[1,-2,3.25,0,-0.0,1e10,1E-2,12345678901234567890,9223372036854775807,0.1000000000000000055511151231257827]"#,
        #"["\u00e9\u4E2D\ud83e\udd54","é中🥔","\n\t\r\b\f\/","",{"":{}},[[]],[{}]]"#,
        " \n [ true , false , null , \"tr\" , \"nu\" ] \r\n",
        #"{"deep":{"deeper":{"deepest":[1,[2,[3,[4,{"five":5}]]]]}}}"#,
        #""a string that is long enough to cross more than one eight-byte word, with ünïcödé and \"escapes\" in it""#,
        "12345.6789e-12",
        "false",
        #"{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"k3":"again"}"#,
    ]

    @Test(arguments: documents)
    func everySingleCutGivesTheSameValue(document: String) throws {
        let bytes = document.bytes
        let whole = try ParserFeeding.parse(bytes)
        for cut in 0...bytes.count {
            let value = try ParserFeeding.parse(bytes, cuts: [cut])
            #expect(value == whole, "cut at byte \(cut)")
        }
        #expect(try ParserFeeding.parseBytewise(bytes) == whole, "one byte at a time")
    }

    /// The tape (what decoding reads) records the same document however it is cut: numbers,
    /// strings and literals cut by a chunk boundary are carried over in tape mode too.
    @Test(arguments: documents)
    func everySingleCutGivesTheSameTape(document: String) throws {
        let bytes = document.bytes
        let whole = try ParserFeeding.parse(bytes)
        #expect(try ParserFeeding.parseThroughTape(bytes) == whole)
        for cut in 0...bytes.count {
            #expect(try ParserFeeding.parseThroughTape(bytes, cuts: [cut]) == whole, "cut at byte \(cut)")
        }
        #expect(try ParserFeeding.parseThroughTape(bytes, cuts: Array(0..<bytes.count)) == whole, "one byte at a time")
    }

    /// A tape reserved for fewer entries than the document has grows (by reallocating) and still
    /// records every token; a declared length, however large, reserves a bounded tape.
    @Test func theTapeGrowsPastItsReservationAndTheReservationIsBounded() throws {
        let bytes = ("[" + (0..<5000).map { #"{"i":\#($0),"s":"x\#($0)"}"# }.joined(separator: ",") + "]").bytes
        var parser = IncrementalJSONParser(mode: .tape)
        parser.reserveTape(forDocumentOf: 1)
        #expect(parser.tape.capacity == 16)
        for start in stride(from: 0, to: bytes.count, by: 4096) {
            try bytes[start..<min(start + 4096, bytes.count)].withUnsafeBytes { try parser.feed($0) }
        }
        _ = try parser.finish()
        let tape = parser.tape.take()
        #expect(tape.count == 1 + 5000 * 5)  // the array, then per object: itself, two keys, two values
        let value = try bytes.withUnsafeBytes { body in
            try tape.withUnsafeBufferPointer { entries in
                try JSONTapeDecoder(
                    tape: entries, bytes: body, at: 0, strategies: JSONDecodingStrategies(JSONDecoder()), duplicateKeys: .useLast
                ).materialize(0)
            }
        }
        #expect(value == (try ParserFeeding.parse(bytes)))

        var declared = IncrementalJSONParser(mode: .tape)
        declared.reserveTape(forDocumentOf: Int(UInt32.max))
        #expect(declared.tape.capacity == IncrementalJSONParser.maximumTapeReservation)
    }

    @Test(arguments: documents.prefix(4))
    func everyPairOfCutsGivesTheSameValue(document: String) throws {
        let bytes = document.bytes
        let whole = try ParserFeeding.parse(bytes)
        for first in 0...bytes.count {
            for second in first...bytes.count {
                #expect(try ParserFeeding.parse(bytes, cuts: [first, second]) == whole, "cuts at \(first) and \(second)")
            }
        }
    }

    @Test func theWholeDocumentMatchesJSONSerialization() throws {
        for document in Self.documents {
            let ours = try ParserFeeding.parse(document.bytes)
            let theirs = try JSONSerialization.jsonObject(with: Data(document.utf8), options: .fragmentsAllowed)
            #expect(FoundationComparison.matches(ours, theirs), "\(document)")
        }
    }

    static let brokenDocuments: [String] = [
        #"{"id":12,"name":"Ada","tags":["x",],"ok":true}"#,
        #"[1,2,3.,4]"#,
        #"["\u00e9\u4E2D\ud83e\udd5"]"#,
        #"{"a":tru}"#,
        #"{"a":1}{"#,
        #"["unterminated"#,
        "[1,2,0123]",
        "{\"a\":\"tab\there\"}",
    ]

    @Test(arguments: brokenDocuments)
    func everyCutFailsAtTheSameByte(document: String) throws {
        let bytes = document.bytes
        let whole = try #require(ParserFeeding.syntaxError(bytes))
        for cut in 0...bytes.count {
            let error = ParserFeeding.syntaxError(bytes, cuts: [cut])
            #expect(error?.offset == whole.offset, "cut at byte \(cut): \(error?.reason ?? "no error")")
            #expect(error?.line == whole.line)
            #expect(error?.column == whole.column)
        }
    }
}
