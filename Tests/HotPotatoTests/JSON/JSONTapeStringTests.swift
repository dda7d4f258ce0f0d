import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Strings read from a tape (decoding from bytes, `JSONDocument`) are made from bytes the parser
/// has already checked, without the standard library checking them again, and marked ASCII only
/// when they are. Swift's `String` relies on both: a non-ASCII string marked ASCII compares,
/// hashes and counts wrongly. These read each kind of string back through every tape path and
/// use it as a `String`.
@Suite struct JSONTapeStringTests {
    /// (JSON text of the string, the Swift string it is).
    static let cases: [(String, String)] = [
        (#""""#, ""),
        (#""short""#, "short"),
        (#""an ASCII string longer than fifteen bytes""#, "an ASCII string longer than fifteen bytes"),
        (#""é""#, "é"),
        (#""Grüße aus Köln — naïve café, 日本語, 🥔🍟""#, "Grüße aus Köln — naïve café, 日本語, 🥔🍟"),
        (#""tab\tquote\"slash\/ and more ASCII after the escapes""#, "tab\tquote\"slash/ and more ASCII after the escapes"),
        // Escapes alone make these non-ASCII: the written bytes are all ASCII.
        (#""caf\u00e9""#, "café"),
        (#""\u65e5\u672c and a long ASCII tail after it""#, "日本 and a long ASCII tail after it"),
        (#""\ud83e\udd54""#, "🥔"),
        // A decomposed é, written with an escape: equal to the precomposed one as a Swift String
        // (canonical equivalence), which holds only if the string is not marked ASCII.
        (#""e\u0301""#, "\u{E9}"),
        (#""cafe\u0301 au lait, a long string of ASCII""#, "caf\u{E9} au lait, a long string of ASCII"),
        (#""e\u0301 mixed with ü written as is""#, "\u{E9} mixed with ü written as is"),
    ]

    static func checkBehavesAs(_ made: String, _ expected: String, _ written: String) throws {
        // The exact scalars written, as Foundation reads them.
        let read = try #require(try JSONSerialization.jsonObject(with: Data(written.utf8), options: .fragmentsAllowed) as? String)
        #expect(made.utf8.elementsEqual(read.utf8), "\(written)")
        #expect(made == expected, "\(written)")
        #expect(made.hashValue == expected.hashValue, "\(written)")
        #expect(Set([made, expected]).count == 1, "\(written)")
        #expect(made.count == expected.count, "\(written)")
        #expect(made.utf16.count == read.utf16.count, "\(written)")
        #expect(made.lowercased() == expected.lowercased(), "\(written)")
        #expect(made.hasPrefix(String(expected.prefix(1))), "\(written)")
    }

    @Test func decodingFromBytes() throws {
        let text = "[" + Self.cases.map(\.0).joined(separator: ",") + "]"
        let strings = try JSON.decode([String].self, from: Data(text.utf8))
        try #require(strings.count == Self.cases.count)
        for (made, (written, expected)) in zip(strings, Self.cases) {
            try Self.checkBehavesAs(made, expected, written)
        }
    }

    @Test func decodingKeysFromBytes() throws {
        let text = "{" + Self.cases.enumerated().map { "\($1.0):\($0)" }.joined(separator: ",") + "}"
        let dictionary = try JSON.decode([String: Int].self, from: Data(text.utf8))
        // A Swift Dictionary merges keys that are canonically equivalent ("e\u0301" and "é"),
        // as documented: one entry each, holding one of their values.
        #expect(Set(dictionary.keys) == Set(Self.cases.map(\.1)))
        for (key, index) in dictionary {
            #expect(Self.cases[index].1 == key, "\(Self.cases[index].0)")
        }
    }

    @Test func readingAJSONDocument() throws {
        let text = "[" + Self.cases.map(\.0).joined(separator: ",") + "]"
        let document = try JSONDocument(parsing: Data(text.utf8))
        for (index, (written, expected)) in Self.cases.enumerated() {
            let made = try #require(document[index]?.stringValue)
            try Self.checkBehavesAs(made, expected, written)
        }
    }
}
