import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Keys are compared by their UTF-8 bytes everywhere (RFC 8259 §8.3): `"é"` (precomposed) and
/// `"e\u0301"` (an `e` and a combining accent), which Swift's `String` holds equal, are two keys —
/// in small objects and in objects large enough to be indexed, in the tree, the document and both
/// decoders, and under every duplicate-key policy.
@Suite struct JSONMemberNameTests {
    static let precomposed = "\u{E9}"
    static let combining = "e\u{301}"

    /// An object with `padding` members `"p<i>": i`, then `"é": 1` and `"e\u0301": 2`, each key
    /// written as in `spelling` (raw UTF-8 or `\u` escapes).
    static func object(padding: Int, escaped: Bool = false) -> String {
        var members = (0..<padding).map { #""p\#($0)":\#($0)"# }
        members.append(escaped ? #""\u00e9":1"# : #""\#(precomposed)":1"#)
        members.append(escaped ? #""e\u0301":2"# : #""\#(combining)":2"#)
        return "{" + members.joined(separator: ",") + "}"
    }

    static let sizes = [0, 15, 40]

    @Test(arguments: sizes, [false, true])
    func theTreeKeepsBothSpellingsUnderEveryPolicy(padding: Int, escaped: Bool) throws {
        #expect(Self.precomposed == Self.combining, "Swift's String holds them equal: the case this suite is about")
        let text = Self.object(padding: padding, escaped: escaped)
        for policy in [JSONParsingOptions.DuplicateKeyPolicy.useLast, .useFirst, .reject] {
            let json = try JSON(parsing: text, options: JSONParsingOptions(duplicateKeys: policy))
            let object = try #require(json.objectValue)
            #expect(object.count == padding + 2, "\(policy)")
            #expect(object[Self.precomposed] == 1, "\(policy)")
            #expect(object[Self.combining] == 2, "\(policy)")
            #expect(Array(object.keys.suffix(2)).map { Array($0.utf8) } == [Array(Self.precomposed.utf8), Array(Self.combining.utf8)])
        }
    }

    @Test(arguments: sizes)
    func aRepeatedSpellingIsStillADuplicate(padding: Int) throws {
        let text = Self.object(padding: padding).dropLast() + #","\#(Self.combining)":3}"#
        #expect(try JSON(parsing: String(text))[key: Self.combining] == 3)
        #expect(try JSON(parsing: String(text), options: JSONParsingOptions(duplicateKeys: .useFirst))[key: Self.combining] == 2)
        #expect(try JSON(parsing: String(text))[key: Self.precomposed] == 1)
        #expect(throws: HotPotatoError.self) {
            try JSON(parsing: String(text), options: JSONParsingOptions(duplicateKeys: .reject))
        }
    }

    @Test(arguments: sizes)
    func editingAnObjectKeepsTheSpellingsApart(padding: Int) {
        var object = JSON.Object((0..<padding).map { JSON.Object.Member(key: "p\($0)", value: .number(JSON.Number($0))) })
        object[Self.precomposed] = 1
        object[Self.combining] = 2
        #expect(object.count == padding + 2)
        #expect(object[Self.precomposed] == 1)
        object[Self.combining] = nil
        #expect(object.count == padding + 1)
        #expect(object[Self.precomposed] == 1)
        #expect(object[Self.combining] == nil)
    }

    @Test func objectsAndMembersWithDifferentSpellingsAreNotEqual() {
        let first: JSON.Object = [Self.precomposed: 1]
        let second: JSON.Object = [Self.combining: 1]
        #expect(first != second)
        #expect(first == [Self.precomposed: 1])
        #expect(JSON.Object.Member(key: Self.precomposed, value: 1) != JSON.Object.Member(key: Self.combining, value: 1))
        #expect(JSON.Object.Member(key: Self.precomposed, value: 1) == JSON.Object.Member(key: "\u{E9}", value: 1))
        #expect(Set([JSON.Object.Member(key: Self.precomposed, value: 1), JSON.Object.Member(key: Self.combining, value: 1)]).count == 2)
        // A Swift Dictionary is the exception, as documented: it merges them, the last member winning.
        #expect(JSON.Object([.init(key: Self.precomposed, value: 1), .init(key: Self.combining, value: 2)]).dictionary == [Self.precomposed: 2])
    }

    @Test(arguments: sizes)
    func theDocumentKeepsBothSpellings(padding: Int) throws {
        // A repeated key makes the document list members through its duplicate-key check.
        let text = String(Self.object(padding: padding).dropLast()) + #","p0":"again"}"#
        let document = try JSONDocument(parsing: text)
        #expect(document[key: Self.precomposed]?.intValue == 1)
        #expect(document[key: Self.combining]?.intValue == 2)
        #expect(document.keys?.count == padding + 2 + (padding == 0 ? 1 : 0))
        #expect(document.json == (try JSON(parsing: text)))
    }

    struct Accented: Decodable, Equatable {
        let value: Int
        enum CodingKeys: String, CodingKey { case value = "\u{E9}" }
    }

    struct SnakeAccented: Decodable, Equatable {
        let caféCount: Int
    }

    /// Decodes `type` from `text` through the tape (from bytes) and through the tree.
    static func decodeBothWays<T: Decodable & Equatable>(
        _ type: T.Type, _ text: String, using decoder: JSONDecoder = JSONDecoder(), policy: JSONParsingOptions.DuplicateKeyPolicy = .useLast
    ) -> [Result<T, any Error>] {
        let options = JSONParsingOptions(duplicateKeys: policy)
        return [
            Result { try JSON.decode(type, from: Data(text.utf8), using: decoder, options: options) },
            Result { try JSON(parsing: text, options: options).decode(type, using: decoder) },
            Result { try JSONDocument(parsing: text, options: options).decode(type, using: decoder) },
        ]
    }

    @Test(arguments: sizes)
    func decodingMatchesTheKeysBytes(padding: Int) throws {
        // The precomposed key is asked for: only the member spelled that way answers.
        let both = Self.object(padding: padding)
        for result in Self.decodeBothWays(Accented.self, both) {
            #expect(try result.get() == Accented(value: 1))
        }
        // With a repeated key (the decoders then look members up in a table).
        let repeated = String(both.dropLast()) + #","p0":0,"\#(Self.combining)":3}"#
        for policy in [JSONParsingOptions.DuplicateKeyPolicy.useLast, .useFirst] {
            for result in Self.decodeBothWays(Accented.self, repeated, policy: policy) {
                #expect(try result.get() == Accented(value: 1), "\(policy)")
            }
        }
        // Only the other spelling: the key is missing, as the text says.
        let other = "{" + (0..<padding).map { #""p\#($0)":\#($0),"# }.joined() + #""\#(Self.combining)":2}"#
        for result in Self.decodeBothWays(Accented.self, other) {
            #expect {
                try result.get()
            } throws: { error in
                guard case DecodingError.keyNotFound(let key, _) = error else { return false }
                return key.stringValue == Self.precomposed
            }
        }
    }

    @Test(arguments: sizes)
    func convertedKeysKeepTheirBytes(padding: Int) throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        // "café_count" spelled both ways; the property's name is precomposed.
        let text = "{" + (0..<padding).map { #""p_\#($0)":\#($0),"# }.joined()
            + #""caf\#(Self.combining)_count":2,"caf\#(Self.precomposed)_count":1}"#
        for result in Self.decodeBothWays(SnakeAccented.self, text, using: decoder) {
            #expect(try result.get() == SnakeAccented(caféCount: 1))
        }
    }

    @Test func streamingFindsTheArrayUnderItsOwnSpelling() {
        let text = #"{"\#(Self.combining)":["not these"],"\#(Self.precomposed)":[1,2]}"#
        for (key, expected) in [(Self.precomposed, [1, 2] as [JSON]), (Self.combining, ["not these"])] {
            for size in [1, 5, Int.max] {
                let (elements, error) = ParserFeeding.elements(text.bytes, mode: .elements, path: [key], pieceSize: size)
                #expect(error == nil)
                #expect(elements == expected, "\(Array(key.unicodeScalars)) in pieces of \(size)")
            }
        }
    }
}
