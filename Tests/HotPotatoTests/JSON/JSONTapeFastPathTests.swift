import Foundation
import Testing
@testable import HotPotato

/// The fast paths of decoding from bytes: small strings made in the standard library's own form,
/// escapes decoded a word at a time, keys of up to 15 bytes compared as words, `[String]` members
/// and arrays of records decoded without `unwrap`'s generic steps. Each is checked against what
/// the ordinary path (or Foundation) gives, including errors and their coding paths.
@Suite struct JSONTapeFastPathTests {
    // MARK: - Small strings

    @Test func smallStringsAreTheStandardLibrarysOwn() throws {
        #if (arch(x86_64) || arch(arm64)) && _endian(little)
        #expect(JSONSmallString.isUsable)
        #endif
        let pieces = ["a", "é", "日", "🥔", "z"]
        var samples: [String] = []
        for count in 0...JSONSmallString.capacity {
            samples.append(String(repeating: "q", count: count))
            for piece in pieces {
                var sample = ""
                while sample.utf8.count + piece.utf8.count <= count { sample += piece }
                samples.append(sample)
            }
        }
        for sample in samples {
            let bytes = Array(sample.utf8)
            let made = bytes.withUnsafeBufferPointer { JSONTapeStrings.make($0, flags: bytes.allSatisfy { $0 < 0x80 } ? 0 : JSONTapeEntry.hasNonASCII) }
            var native = sample
            native.makeContiguousUTF8()
            #expect(unsafeBitCast(made, to: (UInt64, UInt64).self) == unsafeBitCast(native, to: (UInt64, UInt64).self), "\(sample)")
            #expect(made == sample)
            #expect(made.hashValue == sample.hashValue)
            #expect(made.count == sample.count)
            #expect(Array(made.utf8) == bytes)
            if JSONSmallString.isUsable {
                let bits = try #require(JSONSmallString.bits(of: sample))
                #expect(bits.count == bytes.count)
                #expect(bytes.withUnsafeBufferPointer { JSONSmallString.words($0) } == bits.words)
            }
        }
        #expect(JSONSmallString.bits(of: "a string longer than fifteen bytes") == nil)
        #expect(JSONSmallString.bits(of: String(repeating: "ü", count: 8)) == nil)
    }

    @Test func decodedStringsOfEveryLength() throws {
        // Around the small-string limit, with and without escapes and non-ASCII bytes.
        var written: [String] = []
        var expected: [String] = []
        for count in 0...20 {
            written.append(String(repeating: "a", count: count))
            expected.append(String(repeating: "a", count: count))
            written.append(String(repeating: "ä", count: count / 2) + String(repeating: "b", count: count % 2))
            expected.append(String(repeating: "ä", count: count / 2) + String(repeating: "b", count: count % 2))
            written.append(String(repeating: #"\n"#, count: count))
            expected.append(String(repeating: "\n", count: count))
            written.append(String(repeating: #"\u00e9"#, count: count))
            expected.append(String(repeating: "é", count: count))
        }
        let text = "[" + written.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        let strings = try JSON.decode([String].self, from: Data(text.utf8))
        #expect(strings == expected)
        for (made, wanted) in zip(strings, expected) {
            #expect(Array(made.utf8) == Array(wanted.utf8))
            #expect(made.hashValue == wanted.hashValue)
        }
    }

    // MARK: - Escapes

    @Test func escapesAnywhereInRunsOfAnyLength() throws {
        let escapes: [(String, String)] = [
            (#"\""#, "\""), (#"\\"#, "\\"), (#"\/"#, "/"), (#"\b"#, "\u{8}"), (#"\f"#, "\u{C}"), (#"\n"#, "\n"), (#"\r"#, "\r"),
            (#"\t"#, "\t"), (#"\u0041"#, "A"), (#"\u00E9"#, "é"), (#"\u4e2D"#, "中"), (#"\uD83E\uDD54"#, "🥔"), (#"\u0000"#, "\u{0}"),
            (#"\u007f"#, "\u{7F}"), (#"\u0080"#, "\u{80}"), (#"\u07FF"#, "\u{7FF}"), (#"\u0800"#, "\u{800}"), (#"\uFFFF"#, "\u{FFFF}"),
            (#"\uDBFF\uDFFF"#, "\u{10FFFF}"),
        ]
        var written: [String] = []
        var expected: [String] = []
        for (index, (escape, character)) in escapes.enumerated() {
            for run in [0, 1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 40, 64, 100] {
                let text = String(repeating: "x", count: run)
                let other = escapes[(index + 1) % escapes.count]
                // Before, after, between, twice in a row, and next to another escape.
                written.append(text + escape)
                expected.append(text + character)
                written.append(escape + text)
                expected.append(character + text)
                written.append(text + escape + text + "ü" + escape + escape + other.0 + text)
                expected.append(text + character + text + "ü" + character + character + other.1 + text)
            }
        }
        let text = "[" + written.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        let strings = try JSON.decode([String].self, from: Data(text.utf8))
        let foundation = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String])
        try #require(strings.count == expected.count)
        for index in strings.indices {
            #expect(strings[index] == expected[index], "\(written[index])")
            #expect(Array(strings[index].utf8) == Array(foundation[index].utf8), "\(written[index])")
            #expect(strings[index].hashValue == expected[index].hashValue)
        }
    }

    // MARK: - Keys

    struct Keys: Decodable, Equatable {
        let id: Int
        let a: String
        let exactlyEightB: String
        let fifteenBytesKey: String
        let sixteenBytesKeyX: String
        let aKeyFarLongerThanFifteenBytes: String
        let é: String
        let optional: String?
    }

    @Test func keysOfEveryLengthInAnyOrder() throws {
        let members = [
            #""id":1"#, #""a":"one""#, #""exactlyEightB":"two""#, #""fifteenBytesKey":"three""#, #""sixteenBytesKeyX":"four""#,
            #""aKeyFarLongerThanFifteenBytes":"five""#, #""é":"six""#,
        ]
        let expected = Keys(
            id: 1, a: "one", exactlyEightB: "two", fifteenBytesKey: "three", sixteenBytesKeyX: "four",
            aKeyFarLongerThanFifteenBytes: "five", é: "six", optional: nil)
        for order in [members, members.reversed(), Array(members[3...] + members[..<3])] {
            let one = "{" + order.joined(separator: ",") + "}"
            let decoded = try JSON.decode([Keys].self, from: Data("[\(one),\(one),\(one)]".utf8))
            #expect(decoded == [expected, expected, expected])
        }
        // Keys written with escapes, and keys that share a prefix with the wanted one.
        let escaped = #"{"i\u0064":2,"aa":"no","a":"x","exactlyEightBB":"no","exactlyEight":"no","exactlyEightB":"y","#
            + #""fifteenBytesKey":"z","sixteenBytesKeyX":"w","aKeyFarLongerThanFifteenBytes":"v","\u00e9":"u","optional":"t"}"#
        let decoded = try JSON.decode(Keys.self, from: Data(escaped.utf8))
        #expect(decoded == Keys(
            id: 2, a: "x", exactlyEightB: "y", fifteenBytesKey: "z", sixteenBytesKeyX: "w", aKeyFarLongerThanFifteenBytes: "v", é: "u",
            optional: "t"))
        // A missing key is reported with its path.
        let missing = #"[{"id":1,"a":"x","exactlyEightB":"y","fifteenBytesKey":"z","sixteenBytesKeyX":"w","é":"u"}]"#
        #expect {
            try JSON.decode([Keys].self, from: Data(missing.utf8))
        } throws: { error in
            guard case DecodingError.keyNotFound(let key, let context) = error else { return false }
            return key.stringValue == "aKeyFarLongerThanFifteenBytes" && context.codingPath.map(\.stringValue) == ["Index 0"]
        }
    }

    // MARK: - Integers

    struct Integers: Decodable, Equatable {
        let int: Int
        let int8: Int8?
        let uint: UInt?
    }

    @Test func integersAsJSONDecoderReadsThem() throws {
        let numbers = [
            "0", "-0", "7", "-7", "42", "123456789012345678", "-123456789012345678", "999999999999999999", "1234567890123456789",
            "-1234567890123456789", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "1.0", "1e2", "-2.0e1",
            "1.5", "12345678901234567890123",
        ]
        for number in numbers {
            for text in [#"{"int":\#(number)}"#, #"{"int":1,"int8":\#(number)}"#, #"{"int":1,"uint":\#(number)}"#] {
                let ours = Result { try JSON.decode(Integers.self, from: Data(text.utf8)) }
                let theirs = Result { try JSONDecoder().decode(Integers.self, from: Data(text.utf8)) }
                switch (ours, theirs) {
                case (.success(let mine), .success(let foundations)): #expect(mine == foundations, "\(text)")
                case (.failure(let mine as DecodingError), .failure(let foundations as DecodingError)):
                    // The same kind of error (Foundation on Linux gives numbers that do not fit
                    // no coding path; ours names the member, as it did before the fast path).
                    #expect(Self.describe(mine).prefix(while: { $0 != " " }) == Self.describe(foundations).prefix(while: { $0 != " " }), "\(text)")
                default: Issue.record("\(text): \(ours) against \(theirs)")
                }
            }
            let array = "[\(number),\(number)]"
            let ours = Result { try JSON.decode([Int].self, from: Data(array.utf8)) }
            let theirs = Result { try JSONDecoder().decode([Int].self, from: Data(array.utf8)) }
            switch (ours, theirs) {
            case (.success(let mine), .success(let foundations)): #expect(mine == foundations, "\(array)")
            case (.failure, .failure): break
            default: Issue.record("\(array): \(ours) against \(theirs)")
            }
        }
    }

    // MARK: - [String] members

    struct Tagged: Decodable, Equatable {
        let tags: [String]
        let more: [String]?
    }

    @Test func stringArrayMembers() throws {
        let text = #"[{"tags":["a","b\n","a string longer than fifteen bytes","日本"],"more":["x"]},{"tags":[],"more":null},{"tags":["z"]}]"#
        let decoded = try JSON.decode([Tagged].self, from: Data(text.utf8))
        #expect(decoded == [
            Tagged(tags: ["a", "b\n", "a string longer than fifteen bytes", "日本"], more: ["x"]), Tagged(tags: [], more: nil),
            Tagged(tags: ["z"], more: nil),
        ])
        let foundation = try JSONDecoder().decode([Tagged].self, from: Data(text.utf8))
        #expect(decoded == foundation)
    }

    @Test func stringArrayMembersThatAreNotReportTheirPaths() throws {
        for text in [#"{"tags":["a",2]}"#, #"{"tags":"a"}"#, #"{"tags":null}"#, #"{"tags":["a"],"more":[null]}"#, #"{"tags":["a"],"more":3}"#] {
            var ours: (any Error)?
            var theirs: (any Error)?
            do { _ = try JSON.decode(Tagged.self, from: Data(text.utf8)) } catch { ours = error }
            do { _ = try JSONDecoder().decode(Tagged.self, from: Data(text.utf8)) } catch { theirs = error }
            let mine = try #require(ours as? DecodingError, "\(text)")
            let foundations = try #require(theirs as? DecodingError, "\(text)")
            #expect(Self.describe(mine) == Self.describe(foundations), "\(text)")
        }
    }

    // MARK: - Arrays of records

    struct Record: Decodable, Equatable {
        let name: String
        let when: Date?
    }

    @Test func arraysOfRecordsAndOfSpecialTypes() throws {
        let records = #"[{"name":"a"},{"name":"b","when":0},{"name":"c","when":86400}]"#
        #expect(try JSON.decode([Record].self, from: Data(records.utf8)) == JSONDecoder().decode([Record].self, from: Data(records.utf8)))
        // Element types `unwrap` treats itself still go through it.
        let dates = "[0, 86400.5]"
        let seconds = JSONDecoder()
        seconds.dateDecodingStrategy = .secondsSince1970
        #expect(try JSON.decode([Date].self, from: Data(dates.utf8), using: seconds)
            == [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 86400.5)])
        let dictionaries = #"[{"snake_key":1},{"other_key":2}]"#
        let snake = JSONDecoder()
        snake.keyDecodingStrategy = .convertFromSnakeCase
        #expect(try JSON.decode([[String: Int]].self, from: Data(dictionaries.utf8), using: snake) == [["snake_key": 1], ["other_key": 2]])
        let urls = #"["https://example.com/a","https://example.com/b"]"#
        #expect(try JSON.decode([URL].self, from: Data(urls.utf8)).map(\.path) == ["/a", "/b"])
        // An element that is not an object is reported at its index, as JSONDecoder does.
        let broken = #"[{"name":"a"},3]"#
        var ours: (any Error)?
        var theirs: (any Error)?
        do { _ = try JSON.decode([Record].self, from: Data(broken.utf8)) } catch { ours = error }
        do { _ = try JSONDecoder().decode([Record].self, from: Data(broken.utf8)) } catch { theirs = error }
        let mine = try #require(ours as? DecodingError)
        let foundations = try #require(theirs as? DecodingError)
        #expect(Self.describe(mine) == Self.describe(foundations))
    }

    /// The kind of a decoding error and its coding path.
    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .typeMismatch(_, let context): return "typeMismatch " + context.codingPath.map(\.stringValue).joined(separator: ".")
        case .valueNotFound(_, let context): return "valueNotFound " + context.codingPath.map(\.stringValue).joined(separator: ".")
        case .keyNotFound(let key, let context):
            return "keyNotFound \(key.stringValue) " + context.codingPath.map(\.stringValue).joined(separator: ".")
        case .dataCorrupted(let context): return "dataCorrupted " + context.codingPath.map(\.stringValue).joined(separator: ".")
        @unknown default: return "unknown"
        }
    }
}
