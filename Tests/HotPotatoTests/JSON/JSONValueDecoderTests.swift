import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Decoding straight from a parsed value gives what `JSONDecoder` gives from the same bytes: the
/// same values under the same strategies, and the same `DecodingError`s at the same coding paths.
@Suite struct JSONValueDecoderTests {
    /// The two ways HotPotato decodes: from a parsed ``JSON`` value, and from the bytes through
    /// the parser's tape (what `.as(_:)` does with a body).
    enum Path: String, CaseIterable, Sendable {
        case value, tape
    }

    static func decode<T: Decodable>(
        _ type: T.Type, _ text: String, _ path: Path, using decoder: JSONDecoder = JSONDecoder(), atKeyPath keyPath: String? = nil
    ) throws -> T {
        switch path {
        case .value: return try JSON(parsing: text).decode(type, atKeyPath: keyPath, using: decoder)
        case .tape: return try JSON.decode(type, from: Data(text.utf8), atKeyPath: keyPath, using: decoder)
        }
    }

    struct Profile: Codable, Equatable {
        enum Role: String, Codable { case admin, member }
        enum Level: Int, Codable { case low = 1, high = 2 }
        enum Shape: Codable, Equatable {
            case circle(radius: Double)
            case label(String)
            case none
        }

        struct Address: Codable, Equatable {
            let street: String
            let zip: String?
        }

        let id: Int
        let big: UInt64
        let small: Int8
        let ratio: Float
        let score: Double
        let name: String
        let active: Bool
        let role: Role
        let level: Level
        let tags: [String]
        let matrix: [[Int]]
        let counts: [String: Int]
        let address: Address
        let previous: Address?
        let missing: String?
        let shapes: [Shape]
        let link: URL
        let price: Decimal
        let nothing: [Int?]
        let raw: JSON
    }

    static let profileText = #"""
    {"id": 42, "big": 18446744073709551615, "small": -128, "ratio": 0.1, "score": 3.14159,
     "name": "Zoë \"Z\" 🥔", "active": true, "role": "admin", "level": 2, "tags": ["a", "b"],
     "matrix": [[1, 2], [], [3]], "counts": {"x": 1, "y_z": 2}, "address": {"street": "Main", "zip": null},
     "previous": null, "shapes": [{"circle": {"radius": 2.5}}, {"label": {"_0": "hi"}}, {"none": {}}],
     "link": "https://example.com/a?b=c", "price": 12345678901234567.89, "nothing": [1, null, 3],
     "raw": {"free": ["form", 1.50, null]}}
    """#

    @Test(arguments: Path.allCases) func decodesWhatJSONDecoderDecodes(path: Path) throws {
        let ours = try Self.decode(Profile.self, Self.profileText, path)
        let theirs = try JSONDecoder().decode(Profile.self, from: Data(Self.profileText.utf8))
        #expect(ours == theirs)
        #expect(ours.big == .max)
        #expect(ours.price == Decimal(string: "12345678901234567.89"), "Decimal from the exact digits")
        #expect(ours.raw["free.1"]?.numberValue?.text == "1.50", "JSON stays JSON, digits and all")
    }

    struct Snake: Codable, Equatable {
        let userName: String
        let httpStatusCode: Int
        let _private: Bool
        let trailing_: Int
        let headerValues: [String: String]
        let nested: Inner

        struct Inner: Codable, Equatable {
            let innerKey: [Int]
        }
    }

    @Test(arguments: Path.allCases) func keyStrategies(path: Path) throws {
        let text = #"{"user_name":"ada","http_status_code":200,"_private":true,"trailing_":1,"header_values":{"content_type":"json","X-Y":"z"},"nested":{"inner_key":[1]}}"#
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let ours = try Self.decode(Snake.self, text, path, using: decoder)
        #expect(ours == (try decoder.decode(Snake.self, from: Data(text.utf8))))
        #expect(ours.headerValues["content_type"] == "json", "dictionary keys are data: left as written")

        let custom = JSONDecoder()
        custom.keyDecodingStrategy = .custom { path in
            AnyKey(path.last!.stringValue.replacingOccurrences(of: "-", with: ""))
        }
        let dashed = #"{"na-me":"x","co-unt":3}"#
        struct Dashed: Codable, Equatable { let name: String; let count: Int }
        #expect(try Self.decode(Dashed.self, dashed, path, using: custom) == (try custom.decode(Dashed.self, from: Data(dashed.utf8))))
    }

    struct AnyKey: CodingKey {
        let stringValue: String
        let intValue: Int? = nil
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    struct Dated: Codable, Equatable {
        let at: Date
        let blob: Data
    }

    @Test(arguments: Path.allCases, [
        (#"{"at": 1700000000.5, "blob": "aGk="}"#, "seconds"),
        (#"{"at": 1700000000500, "blob": "aGk="}"#, "milliseconds"),
        (#"{"at": "2023-11-14T22:13:20Z", "blob": "aGk="}"#, "iso8601"),
        (#"{"at": 721692800.5, "blob": [104, 105]}"#, "deferred"),
        (#"{"at": "day 19675", "blob": "686"}"#, "custom"),
    ])
    func dateAndDataStrategies(path: Path, example: (text: String, strategy: String)) throws {
        let (text, strategy) = example
        let decoder = JSONDecoder()
        switch strategy {
        case "seconds": decoder.dateDecodingStrategy = .secondsSince1970
        case "milliseconds": decoder.dateDecodingStrategy = .millisecondsSince1970
        case "iso8601": decoder.dateDecodingStrategy = .iso8601
        case "deferred":
            decoder.dateDecodingStrategy = .deferredToDate
            decoder.dataDecodingStrategy = .deferredToData
        default:
            decoder.dateDecodingStrategy = .custom { decoder in
                let text = try decoder.singleValueContainer().decode(String.self)
                return Date(timeIntervalSince1970: Double(text.dropFirst(4))! * 86_400)
            }
            decoder.dataDecodingStrategy = .custom { decoder in
                Data(try decoder.singleValueContainer().decode(String.self).utf8.map { $0 + 50 })
            }
        }
        let ours = try Self.decode(Dated.self, text, path, using: decoder)
        #expect(ours == (try decoder.decode(Dated.self, from: Data(text.utf8))), "\(strategy)")
    }

    @Test(arguments: Path.allCases) func nonConformingFloatsAndUserInfo(path: Path) throws {
        struct Floats: Decodable, Equatable {
            let values: [Double]
            let tag: String
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                values = try container.decode([Double].self, forKey: .values)
                tag = decoder.userInfo[CodingUserInfoKey(rawValue: "tag")!] as? String ?? "none"
            }
            enum CodingKeys: String, CodingKey { case values }
        }
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        decoder.userInfo[CodingUserInfoKey(rawValue: "tag")!] = "mine"
        let text = #"{"values": [1.5, "+inf", "-inf", "nan"]}"#
        let ours = try Self.decode(Floats.self, text, path, using: decoder)
        #expect(ours.values[0] == 1.5)
        #expect(ours.values[1] == .infinity)
        #expect(ours.values[2] == -.infinity)
        #expect(ours.values[3].isNaN)
        #expect(ours.tag == "mine")
        #expect(throws: DecodingError.self) { try Self.decode(Floats.self, text, path) }
    }

    @Test(arguments: Path.allCases) func numbersDecodeOnlyWhenTheyFit(path: Path) throws {
        #expect(try Self.decode(Int.self, "34.0", path) == 34)
        #expect(try Self.decode(Int.self, "3.4e1", path) == 34)
        #expect(try Self.decode(UInt8.self, "255", path) == 255)
        #expect(try Self.decode(UInt64.self, "18446744073709551615", path) == .max)
        #expect(try Self.decode(Double.self, "1e-2", path) == 0.01)
        #expect(try Self.decode(Double.self, "0.0", path) == 0)
        for (text, type) in [("34.5", "Int"), ("256", "UInt8"), ("-1", "UInt"), ("1e400", "Double"), ("1e-400", "Double"),
                             ("3.5e38", "Float"), ("18446744073709551616", "UInt64")] {
            let error: DecodingError? = switch type {
            case "Int": Self.decodingError { try Self.decode(Int.self, text, path) }
            case "UInt8": Self.decodingError { try Self.decode(UInt8.self, text, path) }
            case "UInt": Self.decodingError { try Self.decode(UInt.self, text, path) }
            case "Float": Self.decodingError { try Self.decode(Float.self, text, path) }
            case "UInt64": Self.decodingError { try Self.decode(UInt64.self, text, path) }
            default: Self.decodingError { try Self.decode(Double.self, text, path) }
            }
            guard case .dataCorrupted(let context) = error else {
                Issue.record("\(text) as \(type): \(String(describing: error))")
                continue
            }
            #expect(context.debugDescription.contains(text), "the message names the number")
        }
        let nested = #"{"a":[1,{"b":300}]}"#
        struct B: Decodable { let b: Int8 }
        struct A: Decodable { let a: [Either] }
        enum Either: Decodable {
            case number(Int), b(B)
            init(from decoder: any Decoder) throws {
                if let number = try? decoder.singleValueContainer().decode(Int.self) { self = .number(number) } else { self = .b(try B(from: decoder)) }
            }
        }
        let error = Self.decodingError { try Self.decode(A.self, nested, path) }
        guard case .dataCorrupted(let context) = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(Self.describe(context.codingPath) == ["a", "Index 1", "b"], "unlike JSONDecoder on Linux, the path says where")
    }

    // MARK: - Errors

    static func decodingError(_ body: () throws -> Any) -> DecodingError? {
        do {
            _ = try body()
            return nil
        } catch let error as DecodingError {
            return error
        } catch {
            return nil
        }
    }

    static func describe(_ path: [any CodingKey]) -> [String] {
        path.map { $0.intValue.map { "Index \($0)" } ?? $0.stringValue }
    }

    /// The case of a `DecodingError` and its coding path.
    static func summary(_ error: DecodingError?) -> String {
        switch error {
        case .typeMismatch(let type, let context): return "typeMismatch \(type) \(describe(context.codingPath))"
        case .valueNotFound(let type, let context): return "valueNotFound \(type) \(describe(context.codingPath))"
        case .keyNotFound(let key, let context): return "keyNotFound \(key.stringValue) \(describe(context.codingPath))"
        case .dataCorrupted(let context): return "dataCorrupted \(describe(context.codingPath))"
        case nil: return "no error"
        @unknown default: return "unknown"
        }
    }

    @Test(arguments: Path.allCases, [
        #"{"street": 1}"#, #"{"zip": "x"}"#, #"{"street": null}"#, #"[]"#, #""text""#, "null",
    ])
    func errorsForAnAddressMatchJSONDecoder(path: Path, text: String) throws {
        let ours = Self.decodingError { try Self.decode(Profile.Address.self, text, path) }
        let theirs = Self.decodingError { try JSONDecoder().decode(Profile.Address.self, from: Data(text.utf8)) }
        #expect(ours != nil)
        #expect(Self.summary(ours) == Self.summary(theirs), "\(text)")
    }

    @Test(arguments: Path.allCases, [
        #"{"users": [{"name": "a", "age": 1}, {"name": "b"}]}"#,
        #"{"users": [{"name": "a", "age": 1}, {"name": "b", "age": "2"}]}"#,
        #"{"users": [{"name": "a", "age": 1}, null]}"#,
        #"{"users": {"name": "a"}}"#,
        #"{"users": [{"name": "a", "age": 1, "role": "boss"}]}"#,
        #"{"users": [{"name": "a", "age": 1, "tags": [1]}]}"#,
        #"{"users": [{"name": ["a"], "age": 1}]}"#,
        #"{"user": []}"#,
    ])
    func nestedErrorsMatchJSONDecoder(path: Path, text: String) throws {
        struct User: Decodable {
            let name: String
            let age: Int
            let role: Profile.Role?
            let tags: [String]?
        }
        struct Team: Decodable { let users: [User] }
        let ours = Self.decodingError { try Self.decode(Team.self, text, path) }
        let theirs = Self.decodingError { try JSONDecoder().decode(Team.self, from: Data(text.utf8)) }
        #expect(ours != nil)
        #expect(Self.summary(ours) == Self.summary(theirs), "\(text)")
    }

    @Test(arguments: Path.allCases) func unkeyedContainersAtTheirEnd(path: Path) throws {
        struct Pair: Decodable, Equatable {
            let first: Int
            let second: String?
            init(from decoder: any Decoder) throws {
                var container = try decoder.unkeyedContainer()
                first = try container.decode(Int.self)
                second = try container.decodeIfPresent(String.self)
            }
        }
        #expect(try Self.decode(Pair.self, "[1]", path) == (try JSONDecoder().decode(Pair.self, from: Data("[1]".utf8))))
        #expect(try Self.decode(Pair.self, #"[1,"x"]"#, path).second == "x")
        let ours = Self.decodingError { try Self.decode(Pair.self, "[]", path) }
        let theirs = Self.decodingError { try JSONDecoder().decode(Pair.self, from: Data("[]".utf8)) }
        #expect(Self.summary(ours) == Self.summary(theirs))
    }

    @Test(arguments: Path.allCases) func superDecodersAndNestedContainers(path: Path) throws {
        class Base: Decodable {
            let id: Int
            required init(from decoder: any Decoder) throws {
                id = try decoder.container(keyedBy: Keys.self).decode(Int.self, forKey: .id)
            }
            enum Keys: String, CodingKey { case id }
        }
        final class Derived: Base {
            let extra: String
            let inner: [Int]
            required init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Keys.self)
                extra = try container.decode(String.self, forKey: .extra)
                var list = try container.nestedContainer(keyedBy: Keys.self, forKey: .box).nestedUnkeyedContainer(forKey: .items)
                var inner: [Int] = []
                while !list.isAtEnd { inner.append(try list.decode(Int.self)) }
                self.inner = inner
                try super.init(from: container.superDecoder())
            }
            enum Keys: String, CodingKey { case extra, box, items }
        }
        let text = #"{"extra":"e","box":{"items":[1,2,3]},"super":{"id":7}}"#
        let ours = try Self.decode(Derived.self, text, path)
        let theirs = try JSONDecoder().decode(Derived.self, from: Data(text.utf8))
        #expect(ours.id == theirs.id && ours.extra == theirs.extra && ours.inner == theirs.inner)
        #expect(ours.id == 7 && ours.inner == [1, 2, 3])
    }

    @Test(arguments: Path.allCases) func atAKeyPath(path: Path) throws {
        let json = #"{"data":{"users":[{"street":"a","zip":"1"}]}}"#
        #expect(try Self.decode([Profile.Address].self, json, path, atKeyPath: "data.users").first?.street == "a")
        #expect(try Self.decode(Profile.Address.self, json, path, atKeyPath: "data.users.0").zip == "1")
        let error = try #require(throws: HotPotatoError.self) { try Self.decode(Int.self, json, path, atKeyPath: "data.count") }
        #expect(error.code == .keyPathNotFound)
        #expect(error.keyPath == "data.count")
    }

    @Test(arguments: Path.allCases) func randomDocumentsDecodeAsJSONDecoderDecodesThem(path: Path) throws {
        for seed in UInt64(0)..<200 {
            var random = RandomJSON(seed: seed)
            let text = random.document(depth: 3).text
            let ours = try Self.decode(JSON.self, text, path)
            let theirs = try JSONDecoder().decode(JSON.self, from: Data(text.utf8))
            // JSONDecoder's trip through JSON.init(from:) keeps integers and doubles, not digits.
            #expect(FoundationComparison.matches(ours, try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)))
            #expect(ours.serialized().count > 0 && (theirs == ours || Self.sameShape(theirs, ours)), "seed \(seed)")
        }
    }

    @Test(arguments: Path.allCases) func escapedKeysAndStrings(path: Path) throws {
        struct Escaped: Decodable, Equatable {
            let name: String
            let quote: String
            let emoji: String
            enum CodingKeys: String, CodingKey { case name, quote = "say \"hi\"", emoji }
        }
        let text = #"{"n\u0061me":"a\/b\n\u00e9","say \"hi\"":"\"q\"","emoji":"\ud83e\udd54 🥔"}"#
        let ours = try Self.decode(Escaped.self, text, path)
        #expect(ours == (try JSONDecoder().decode(Escaped.self, from: Data(text.utf8))))
        #expect(ours.name == "a/b\né")
        #expect(ours.emoji == "🥔 🥔")
    }

    @Test(arguments: Path.allCases) func duplicateKeysFollowThePolicy(path: Path) throws {
        struct Pair: Decodable { let a: Int; let b: Int }
        let text = #"{"a":1,"b":2,"a":3}"#
        #expect(try Self.decode(Pair.self, text, path).a == 3, "the last value, by default")
        let first: Pair
        switch path {
        case .value: first = try JSON(parsing: text, options: JSONParsingOptions(duplicateKeys: .useFirst)).decode(Pair.self)
        case .tape: first = try JSON.decode(Pair.self, from: Data(text.utf8), options: JSONParsingOptions(duplicateKeys: .useFirst))
        }
        #expect(first.a == 1)
        let rejected = #expect(throws: HotPotatoError.self) {
            switch path {
            case .value: _ = try JSON(parsing: text, options: JSONParsingOptions(duplicateKeys: .reject)).decode(Pair.self)
            case .tape: _ = try JSON.decode(Pair.self, from: Data(text.utf8), options: JSONParsingOptions(duplicateKeys: .reject))
            }
        }
        #expect(rejected?.code == .invalidJSON)
        #expect(rejected?.byteOffset == 13)
        #expect(rejected?.column == 14)
    }

    @Test(arguments: Path.allCases) func largeObjectsAndDictionaries(path: Path) throws {
        let members = (0..<100).map { #""key_\#($0)":\#($0)"# }.joined(separator: ",")
        let text = "{" + members + #","key_7":"again"}"#
        let dictionary = try Self.decode([String: JSON].self, text, path)
        #expect(dictionary.count == 100)
        #expect(dictionary["key_7"] == "again")
        #expect(dictionary["key_99"] == 99)
        struct Some: Decodable { let key_0: Int; let key_99: Int }
        let some = try Self.decode(Some.self, text, path)
        #expect(some.key_0 == 0 && some.key_99 == 99)
        let snake = JSONDecoder()
        snake.keyDecodingStrategy = .convertFromSnakeCase
        struct Camel: Decodable { let key50: Int }
        #expect(try Self.decode(Camel.self, text, path, using: snake).key50 == 50)
    }

    @Test func theHandlerDecodesFromTheBodyThroughTheTape() throws {
        struct Message: Decodable, Sendable { let message: String; let count: Int }
        let body = Data("\u{FEFF}{\"message\":\"hé\",\"count\":3}".utf8)
        let head = ResponseHead(status: 200, headers: ["Content-Type": "application/json"])
        for size in [1, 5, 1024] {
            let chunks = stride(from: 0, to: body.count, by: size).map { Data(body[$0..<min($0 + size, body.count)]) }
            let message = try ResponseDriver.run(JSONParser(decoding: Message.self), head: head, chunks: chunks)
            #expect(message.message == "hé" && message.count == 3, "chunks of \(size)")
        }
    }

    /// A limit above 4 GiB (which a tape cannot address) still decodes through the tape when the
    /// body declares a length below it and is not content-encoded (its decoded length could be
    /// anything); otherwise through a ``JSON`` value. Either way the result is the same.
    @Test(arguments: [
        (["Content-Length": "27"], true),
        ([:], false),
        (["Content-Length": "27", "Content-Encoding": "gzip"], false),
        (["Content-Length": "5000000000"], false),
    ])
    func aLimitAbove4GiBUsesTheTapeWhenTheBodyIsKnownToBeSmaller(headers: [String: String], tape: Bool) throws {
        struct Message: Decodable, Sendable { let message: String; let count: Int }
        let body = Data("{\"message\":\"hé\",\"count\":3}".utf8)
        var fields = headers
        fields["Content-Type"] = "application/json"
        let parser = JSONParser(decoding: Message.self, maximumBodySize: .max)
        let driver = ResponseDriver(handler: parser)
        #expect(driver.receive(head: ResponseHead(status: 200, headers: HTTPHeaders(fields))))
        #expect(parser.recordsTape == tape)
        if headers["Content-Length"].flatMap(Int.init) ?? body.count == body.count {
            let message = try ResponseDriver.run(JSONParser(decoding: Message.self, maximumBodySize: .max),
                                                 head: ResponseHead(status: 200, headers: HTTPHeaders(fields)), chunks: [body])
            #expect(message.message == "hé" && message.count == 3)
        }
        // A limit within 4 GiB always decodes through the tape (a longer declared body is
        // refused at the head).
        let limited = JSONParser(decoding: Message.self, maximumBodySize: Int64(UInt32.max))
        let accepted = ResponseDriver(handler: limited).receive(head: ResponseHead(status: 200, headers: HTTPHeaders(fields)))
        #expect(accepted == (headers["Content-Length"].flatMap(Int64.init) ?? 0 <= Int64(UInt32.max)))
        #expect(limited.recordsTape == accepted)
    }

    static func sameShape(_ lhs: JSON, _ rhs: JSON) -> Bool {
        switch (lhs, rhs) {
        case let (.number(left), .number(right)): return left.doubleValue == right.doubleValue || abs(left.doubleValue - right.doubleValue) <= abs(right.doubleValue) * 1e-15
        case let (.array(left), .array(right)): return left.count == right.count && zip(left, right).allSatisfy { sameShape($0, $1) }
        case let (.object(left), .object(right)):
            return left.count == right.count && left.allSatisfy { member in right[member.key].map { sameShape(member.value, $0) } ?? false }
        default: return lhs == rhs
        }
    }
}
