import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// `JSONDocument`: the same strict parse as `JSON(parsing:)`, kept as bytes and a tape; every
/// value read from it is the one the `JSON` tree holds.
@Suite struct JSONDocumentTests {
    static let sample = #"""
        {"id":12,"name":"Ada \"Countess\" Lovelace","tags":["x","y\\z","\u00e9\ud83e\udd54"],"ok":true,"none":null,
         "n":-0.5e-3,"big":123456789012345678901234567890,"exact":0.1000000000000000055511151231257827,
         "nested":{"deep":{"list":[1,[2,{"three":3}]]}},"dotted.key":"yes","":{"empty":"key"}}
        """#

    @Test func everyValueIsTheTreesValue() throws {
        let document = try JSONDocument(parsing: Self.sample)
        let tree = try JSON(parsing: Self.sample)
        #expect(document.json == tree)
        #expect(document.description == tree.description)
        #expect(document.count == tree.objectValue?.count)
        #expect(document.keys == tree.objectValue?.members.map(\.key))
        for (key, value) in document.members ?? [] {
            #expect(value.json == tree[key: key], "\(key)")
        }
    }

    @Test func keyPathsIndicesAndScalars() throws {
        let document = try JSONDocument(parsing: Self.sample)
        #expect(document["id"]?.intValue == 12)
        #expect(document["id"]?.int64Value == 12)
        #expect(document["id"]?.doubleValue == 12)
        #expect(document["name"]?.stringValue == #"Ada "Countess" Lovelace"#)
        #expect(document["tags.1"]?.stringValue == #"y\z"#)
        #expect(document["tags.2"]?.stringValue == "é🥔")
        #expect(document["tags"]?[0]?.stringValue == "x")
        #expect(document["tags"]?.arrayValue?.compactMap(\.stringValue) == ["x", #"y\z"#, "é🥔"])
        #expect(document["ok"]?.boolValue == true)
        #expect(document["none"]?.isNull == true)
        #expect(document["n"]?.doubleValue == -0.0005)
        #expect(document["big"]?.numberValue?.text == "123456789012345678901234567890")
        #expect(document["big"]?.intValue == nil)
        #expect(document["exact"]?.numberValue?.text == "0.1000000000000000055511151231257827")
        #expect(document["nested.deep.list.1.1.three"]?.intValue == 3)
        #expect(document[key: "dotted.key"]?.stringValue == "yes")
        #expect(document["dotted.key"] == nil)
        #expect(document[key: ""]?["empty"]?.stringValue == "key")
        #expect(document[""]?.count == document.count)
        // Wrong kinds and missing steps are nil, not a crash.
        #expect(document["tags.3"] == nil)
        #expect(document["tags.-1"] == nil)
        #expect(document["tags"]?[-1] == nil)
        #expect(document["tags.x"] == nil)
        #expect(document["id.x"] == nil)
        #expect(document["missing"] == nil)
        #expect(document["name"]?.intValue == nil)
        #expect(document["id"]?.stringValue == nil)
        #expect(document["id"]?.count == nil)
        #expect(document["tags"]?.members == nil)
        #expect(document.arrayValue == nil)
        #expect(document["ok"]?.isNull == false)
    }

    @Test func randomDocumentsReadBackTheirValue() throws {
        for seed in UInt64(0)..<200 {
            var random = RandomJSON(seed: seed)
            let (text, value) = random.document()
            let document = try JSONDocument(parsing: text)
            #expect(document.json == value, "seed \(seed): \(text)")
        }
    }

    @Test func duplicateKeysFollowThePolicy() throws {
        let text = #"{"a":1,"b":2,"a":3}"#
        #expect(try JSONDocument(parsing: text)["a"]?.intValue == 3)
        #expect(try JSONDocument(parsing: text).keys == ["a", "b"])
        let first = try JSONDocument(parsing: text, options: JSONParsingOptions(duplicateKeys: .useFirst))
        #expect(first["a"]?.intValue == 1)
        #expect(first.json == ["a": 1, "b": 2])
        #expect(throws: HotPotatoError.self) {
            try JSONDocument(parsing: text, options: JSONParsingOptions(duplicateKeys: .reject))
        }
        let repeated = "{\"x\":{\"k\":1,\n\"k\":2}}"
        do {
            _ = try JSONDocument(parsing: repeated, options: JSONParsingOptions(duplicateKeys: .reject))
            Issue.record("parsed")
        } catch {
            #expect(error.code == .invalidJSON)
            #expect(error.byteOffset == 13)
            #expect(error.line == 2)
            #expect(error.column == 1)
            #expect(error.intermediate?.data.count == 20)
        }
        // Where the tree's parser reports it, too.
        #expect(throws: HotPotatoError.self) { try JSON(parsing: repeated, options: JSONParsingOptions(duplicateKeys: .reject)) }
        do {
            _ = try JSON(parsing: repeated, options: JSONParsingOptions(duplicateKeys: .reject))
        } catch {
            #expect(error.byteOffset == 13)
        }
        // Without a repeated key, .reject accepts the document.
        #expect(try JSONDocument(parsing: #"{"a":1,"b":{"a":2}}"#, options: JSONParsingOptions(duplicateKeys: .reject))["b.a"]?.intValue == 2)
    }

    @Test func invalidDocumentsFailWithWhereAndTheBytes() {
        for (text, offset) in [("[1,2,]", 5), ("{\"a\":tru}", 5), ("[\"\\x\"]", 2), ("[1]\n[2]", 4), ("", 0)] {
            do {
                _ = try JSONDocument(parsing: text)
                Issue.record("\(text) parsed")
            } catch {
                #expect(error.code == .invalidJSON, "\(text)")
                #expect(error.byteOffset == Int64(offset), "\(text)")
                #expect(error.intermediate?.data == Data(text.utf8), "\(text)")
            }
        }
    }

    @Test func nestingIsLimited() throws {
        let limit = JSONParsingOptions(maximumDepth: 8)
        #expect(try JSONDocument(parsing: String(repeating: "[", count: 8) + String(repeating: "]", count: 8), options: limit).count == 1)
        #expect(throws: HotPotatoError.self) {
            try JSONDocument(parsing: String(repeating: "[", count: 9) + String(repeating: "]", count: 9), options: limit)
        }
    }

    struct Person: Decodable, Equatable {
        let name: String
        let age: Int
    }

    @Test func decodesFromAnyValueWithoutParsingAgain() throws {
        let document = try JSONDocument(parsing: #"{"data":{"people":[{"name":"Ada","age":36},{"name":"Alan","age":41}]}}"#)
        #expect(try document.decode([Person].self, atKeyPath: "data.people") == [Person(name: "Ada", age: 36), Person(name: "Alan", age: 41)])
        #expect(try document["data.people.1"]?.decode(Person.self) == Person(name: "Alan", age: 41))
        let snake = JSONDecoder()
        snake.keyDecodingStrategy = .convertFromSnakeCase
        struct Row: Decodable, Equatable { let firstName: String }
        #expect(try JSONDocument(parsing: #"{"first_name":"Ada"}"#).decode(Row.self, using: snake) == Row(firstName: "Ada"))
        #expect(throws: DecodingError.self) { try document.decode(Person.self, atKeyPath: "data") }
        do {
            _ = try document.decode(Person.self, atKeyPath: "data.nobody")
            Issue.record("decoded")
        } catch let error as HotPotatoError {
            #expect(error.code == .keyPathNotFound)
            #expect(error.keyPath == "data.nobody")
        }
    }

    // MARK: - The handler

    @Test func theHandlerGivesTheSameDocumentHoweverTheBodyIsCut() throws {
        let bytes = Data(Self.sample.utf8)
        let head = ResponseHead(status: 200, headers: ["Content-Type": "application/json"])
        let tree = try JSON(parsing: bytes)
        for cut in 0...bytes.count {
            let chunks = [bytes.prefix(cut), bytes.dropFirst(cut)].filter { !$0.isEmpty }.map { Data($0) }
            let document = try ResponseDriver.run(JSONParser<JSONDocument>(), head: head, chunks: chunks)
            #expect(document.json == tree, "cut at \(cut)")
        }
    }

    @Test func theHandlerTakesAKeyPathAndReportsWhereABodyBreaks() throws {
        let head = ResponseHead(status: 200, headers: ["Content-Type": "application/json"])
        let body = Data(#"{"data":{"items":[1,2,3]}}"#.utf8)
        let items = try ResponseDriver.run(JSONParser<JSONDocument>(atKeyPath: "data.items"), head: head, chunks: [body])
        #expect(items.arrayValue?.compactMap(\.intValue) == [1, 2, 3])
        #expect(throws: HotPotatoError.self) {
            try ResponseDriver.run(JSONParser<JSONDocument>(atKeyPath: "data.nothing"), head: head, chunks: [body])
        }
        let broken = Data(#"{"data":{"items":[1,2,3}}"#.utf8)
        do {
            _ = try ResponseDriver.run(JSONParser<JSONDocument>(), head: head, chunks: [broken.prefix(10), broken.dropFirst(10)])
            Issue.record("parsed")
        } catch {
            #expect(error.code == .invalidJSON)
            #expect(error.byteOffset == 23)
            #expect(error.status == 200)
        }
    }

    @Test func theHandlerReadsOtherCharsetsAndEmptyBodies() throws {
        let utf16 = ResponseHead(status: 200, headers: ["Content-Type": "application/json; charset=utf-16"])
        let body = #"{"name":"Zoë"}"#.data(using: .utf16)!
        let document = try ResponseDriver.run(JSONParser<JSONDocument>(), head: utf16, chunks: [body])
        #expect(document["name"]?.stringValue == "Zoë")
        let plain = ResponseHead(status: 200, headers: ["Content-Type": "application/json"])
        let empty = try ResponseDriver.run(JSONParser<JSONDocument>(emptyBodyPolicy: .null), head: plain, chunks: [])
        #expect(empty.isNull)
        #expect(throws: HotPotatoError.self) { try ResponseDriver.run(JSONParser<JSONDocument>(), head: plain, chunks: []) }
    }
}
