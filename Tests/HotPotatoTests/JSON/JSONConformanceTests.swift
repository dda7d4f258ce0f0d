import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// RFC 8259, rule by rule: what HotPotato's parser accepts and what it rejects, and where.
@Suite struct JSONConformanceTests {
    // MARK: - Accepted

    @Test(arguments: [
        ("1", JSON.number(1)), ("-0", .number(0)), (#""x""#, .string("x")), ("true", .bool(true)),
        ("false", .bool(false)), ("null", .null), ("[]", .array([])), ("{}", .object(JSON.Object())),
    ])
    func anyValueAtTheTopLevel(text: String, expected: JSON) throws {
        #expect(try ParserFeeding.parse(text.bytes) == expected)
    }

    @Test func theFourWhitespaceCharactersAnywhereBetweenTokens() throws {
        let text = " \t\r\n{ \t\r\n\"a\" \t\r\n: \t\r\n[ \t\r\n1 \t\r\n, \t\r\ntrue \t\r\n] \t\r\n} \t\r\n"
        #expect(try ParserFeeding.parse(text.bytes) == ["a": [1, true]])
    }

    @Test func everyEscape() throws {
        let text = #""\" \\ \/ \b \f \n \r \t \u0041 \u00e9 \u4E2D \ud83e\udd54 \u0000""#
        #expect(try ParserFeeding.parse(text.bytes) == .string("\" \\ / \u{08} \u{0C} \n \r \t A é 中 🥔 \u{0}"))
    }

    @Test func rawUTF8OfEveryLengthAndDelete() throws {
        let text = "\"$ £ € 𐍈 🥔 \u{7F}\""
        #expect(try ParserFeeding.parse(text.bytes) == .string("$ £ € 𐍈 🥔 \u{7F}"))
    }

    @Test func emptyAndRepeatedLookingKeys() throws {
        let json = try ParserFeeding.parse(#"{"":1,"a":2,"A":3,"a ":4}"#.bytes)
        #expect(json.objectValue?.keys == ["", "a", "A", "a "])
    }

    @Test(arguments: [
        "0", "-0", "7", "-7", "1.5", "-1.5", "0.25", "0.05", "10.250", "1e2", "1E2", "1e+2", "1e-2", "-1.5E-10",
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "123456789012345678",
        "1234567890123456789", "12345678901234567890123", "0.1000000000000000055511151231257827",
        "123456789.123456789", "-12345.678901", "1e400", "-0.0", "0.0", "100000000000000000000.5",
    ])
    func numbersKeepTheirExactText(text: String) throws {
        let json = try ParserFeeding.parse(text.bytes)
        let number = try #require(json.numberValue)
        let expected = try #require(JSON.Number(text: text))
        #expect(number == expected)
        if text.contains(".") && !text.contains("e") && !text.contains("E") {
            #expect(number.text == text, "a plain decimal is kept as written")
        }
        if number.int64Value == nil && !text.contains("e") && !text.contains(".") {
            #expect(number.text == text, "an integer beyond Int64 is kept exact, not rounded")
        }
        #expect(number.doubleValue == Double(text), "the nearest Double, as Swift rounds it")
    }

    @Test func integersAtTheInt64Boundaries() throws {
        #expect(try ParserFeeding.parse("9223372036854775807".bytes).numberValue?.int64Value == .max)
        #expect(try ParserFeeding.parse("-9223372036854775808".bytes).numberValue?.int64Value == .min)
        #expect(try ParserFeeding.parse("9223372036854775808".bytes).numberValue?.int64Value == nil)
        #expect(try ParserFeeding.parse("2.50".bytes).numberValue?.isInteger == false)
        #expect(try ParserFeeding.parse("2.00".bytes).numberValue?.intValue == 2)
    }

    // MARK: - Rejected

    @Test(arguments: [
        // Structure
        ("", 0), ("   ", 3), ("[1,]", 3), (#"{"a":1,}"#, 7), ("[1 2]", 3), (#"{"a":1 "b":2}"#, 7), (#"{"a" 1}"#, 5),
        ("{a:1}", 1), ("{'a':1}", 1), ("['a']", 1), ("[", 1), ("[1", 2), (#"{"a":"#, 5), (#"{"a""#, 4),
        ("]", 0), ("}", 0), ("[}", 1), (#"{"a":1]"#, 6), ("1 2", 2), ("{}{}", 2), ("[]]", 2), ("// c\n1", 0),
        ("/* c */ 1", 0), ("[,1]", 1), ("[1,,2]", 3), (#"{,"a":1}"#, 1), (#"{"a"::1}"#, 5),
        // Whitespace RFC 8259 does not allow
        ("\u{0C}1", 0), ("\u{0B}1", 0), ("\u{A0}1", 0), ("1\u{00}", 1),
        // Numbers
        ("01", 0), ("-01", 0), ("00", 0), ("+1", 0), (".5", 0), ("1.", 2), ("1.e5", 2), ("1e", 2), ("1e+", 3),
        ("-", 1), ("-a", 1), ("0x10", 1), ("NaN", 0), ("Infinity", 0), ("-Infinity", 1), ("1.5.2", 3),
        // Literals
        ("tru", 3), ("nul", 3), ("True", 0), ("nulls", 4), ("fals", 4), ("[truth]", 1),
        // Strings
        (#""abc"#, 4), ("\"a\u{0}b\"", 2), ("\"a\u{1F}b\"", 2), ("\"a\tb\"", 2), ("\"a\nb\"", 2),
        (#""\a""#, 1), (#""\x41""#, 1), (#""\'""#, 1), (#""\u12""#, 1), (#""\u12G4""#, 5),
        (#""\ud800""#, 1), (#""\udc00""#, 1), (#""\ud800\u0041""#, 1), (#""\ud800x""#, 1),
    ] as [(String, Int64)])
    func rejectsWithTheOffsetOfTheFirstBadByte(text: String, offset: Int64) throws {
        let error = try #require(ParserFeeding.syntaxError(text.bytes), "\(text.debugDescription) must be rejected")
        #expect(error.offset == offset, "\(text.debugDescription): \(error.reason)")
        #expect(ParserFeeding.syntaxError(text.bytes, cuts: Array(0..<text.utf8.count))?.offset == offset,
                "the same byte when fed one byte at a time")
    }

    @Test(arguments: [
        ([0x22, 0xFF, 0x22], 1), ([0x22, 0xC0, 0x80, 0x22], 1), ([0x22, 0xED, 0xA0, 0x80, 0x22], 1),
        ([0x22, 0x61, 0xE2, 0x82, 0x22], 2), ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1), ([0x22, 0x80, 0x22], 1),
        ([0x22, 0x61, 0xF0, 0x9F, 0xA5, 0x22], 2), ([0x22, 0x61, 0x5C, 0x6E, 0xC3, 0x22], 4),
        ([0xC3, 0xA9], 0), ([0x5B, 0xE2, 0x80, 0x8B, 0x5D], 1),
    ] as [([UInt8], Int64)])
    func rejectsInvalidUTF8(bytes: [UInt8], offset: Int64) throws {
        let error = try #require(ParserFeeding.syntaxError(bytes))
        #expect(error.offset == offset, "\(bytes): \(error.reason)")
    }

    @Test func errorsCountLinesAndColumns() throws {
        let error = try #require(ParserFeeding.syntaxError("{\n  \"a\": 1,\n  \"b\": tru\n}".bytes))
        #expect(error.line == 3)
        #expect(error.column == 8)
        #expect(error.offset == 19)
        // The example of the DocC article Working with JSON.
        let trailing = #expect(throws: HotPotatoError.self) { try JSON(parsing: #"{"a": [1, 2,]}"#) }
        #expect(trailing?.line == 1)
        #expect(trailing?.column == 13)
    }

    // MARK: - Limits and policies

    @Test func nestingUpToTheLimitParsesAndPastItFails() throws {
        let limit = JSONParsingOptions().maximumDepth
        let atLimit = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect(try ParserFeeding.parse(atLimit.bytes).arrayValue?.count == 1)
        let past = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        let error = try #require(ParserFeeding.syntaxError(past.bytes))
        #expect(error.offset == Int64(limit))
        #expect(error.reason.contains("deeper than \(limit)"))
        let objects = String(repeating: #"{"a":"#, count: 5) + "1" + String(repeating: "}", count: 5)
        #expect(ParserFeeding.syntaxError(objects.bytes, options: JSONParsingOptions(maximumDepth: 4))?.offset == 20)
        #expect(try ParserFeeding.parse(objects.bytes, options: JSONParsingOptions(maximumDepth: 5))["a.a.a.a.a"] == 1)
    }

    @Test func hostileNestingFailsInsteadOfCrashing() {
        let bytes = [UInt8](repeating: UInt8(ascii: "["), count: 1_000_000)
        #expect(ParserFeeding.syntaxError(bytes)?.offset == 512)
        #expect(ParserFeeding.syntaxError(bytes, options: JSONParsingOptions(maximumDepth: 100_000))?.offset == 100_000)
    }

    @Test func duplicateKeysFollowThePolicy() throws {
        let text = #"{"a":1,"b":2,"a":{"deep":[3]},"c":4}"#
        let last = try ParserFeeding.parse(text.bytes)
        #expect(last.objectValue?.keys == ["a", "b", "c"], "the first key's place")
        #expect(last["a.deep.0"] == 3)
        let first = try ParserFeeding.parse(text.bytes, options: JSONParsingOptions(duplicateKeys: .useFirst))
        #expect(first["a"] == 1)
        #expect(first.objectValue?.count == 3)
        let error = try #require(ParserFeeding.syntaxError(text.bytes, options: JSONParsingOptions(duplicateKeys: .reject)))
        #expect(error.offset == 13, "at the repeated key")
        #expect(error.reason.contains(#""a""#))
    }

    @Test func duplicateKeysInLargeObjects() throws {
        let members = (0..<40).map { #""k\#($0)":\#($0)"# } + [#""k7":"again""#, #""k39":"last""#]
        let text = "{" + members.joined(separator: ",") + "}"
        let json = try ParserFeeding.parse(text.bytes)
        #expect(json.objectValue?.count == 40)
        #expect(json["k7"] == "again")
        #expect(json["k39"] == "last")
        #expect(json.objectValue?.keys.last == "k39")
        let escaped = #"{"a\u0062":1,"ab":2}"#
        #expect(ParserFeeding.syntaxError(escaped.bytes, options: JSONParsingOptions(duplicateKeys: .reject)) != nil,
                "keys compare after their escapes are decoded")
    }

    @Test func hugeStringsAndNumbers() throws {
        let long = String(repeating: "ab€🥔\\n", count: 200_000)
        let json = try ParserFeeding.parse(("\"" + long + "\"").bytes, cuts: [1, 4097, 500_000, 999_999])
        #expect(json.stringValue == String(repeating: "ab€🥔\n", count: 200_000))
        let digits = "9" + String(repeating: "1234567890", count: 10_000) + ".5e-3"
        let number = try ParserFeeding.parse(("[" + digits + "]").bytes, cuts: [3, 50_000])
        #expect(number[0]?.numberValue?.text == digits)
        #expect(number[0]?.numberValue == JSON.Number(text: digits))
    }
}
