import Foundation
import Testing
@testable import HotPotato

/// `JSON(parsing:)` leaves objects in the parsed document (its bytes and tape) until they are
/// changed. These tests hold that to being invisible: a tree read through the document and the
/// same document built in memory (the parser's other path, taken for documents of 4 GiB or more)
/// compare, hash, iterate, serialise, decode and change alike, under every duplicate-key policy,
/// and read safely from many tasks at once.
@Suite struct JSONLazyObjectTests {
    private static let documents = [
        #"{"a":1,"b":"two","c":[true,false,null],"d":{"e":{"f":[{"g":1.5e3}]}}}"#,
        #"[{"id":1,"name":"a"},{"id":2,"name":"b","tags":["x","y"]},{},[{"deep":{"er":[]}}]]"#,
        #"{"é":1,"e\u0301":2,"\u00e9x":"\ud83d\ude00","":{"":""}}"#,
        "{" + (0..<40).map { #""key\#($0)":{"n":\#($0)}"# }.joined(separator: ",") + "}",
        #"[1,"s",[2,[3,{"k":[4]}]],-0.0,12345678901234567890]"#,
        "{}", "[]", "1", #""text""#, "null",
    ]

    private func lazy(_ text: String, _ policy: JSONParsingOptions.DuplicateKeyPolicy = .useLast) throws -> JSON {
        try JSON(parsing: text, options: JSONParsingOptions(duplicateKeys: policy))
    }

    private func inMemory(_ text: String, _ policy: JSONParsingOptions.DuplicateKeyPolicy = .useLast) throws -> JSON {
        try JSONBackend.parseInMemory(Data(text.utf8), options: JSONParsingOptions(duplicateKeys: policy))
    }

    private func readsThroughDocument(_ object: JSON.Object) -> Bool {
        if case .document = object.representation { return true }
        return false
    }

    @Test func parsedObjectsReadThroughTheDocument() throws {
        let json = try lazy(Self.documents[1])
        let first = try #require(json[0]?.objectValue)
        #expect(readsThroughDocument(first))
        #expect(!readsThroughDocument(try #require(try inMemory(Self.documents[1])[0]?.objectValue)))
        #expect(MemoryLayout<JSON.Object>.size == 16, "an object is two words, as before")
        #expect(MemoryLayout<JSON>.stride == 24)
    }

    @Test(arguments: documents) func lazyAndInMemoryTreesAreEqualAndHashAlike(text: String) throws {
        let lazy = try lazy(text)
        let built = try inMemory(text)
        #expect(lazy == built)
        #expect(built == lazy)
        #expect(lazy.hashValue == built.hashValue)
        #expect(Set([lazy, built]).count == 1)
        #expect(lazy.serialized() == built.serialized())
        #expect(lazy.serialized(pretty: true) == built.serialized(pretty: true))
        #expect(lazy.description == built.description)
        if let object = lazy.objectValue, let other = built.objectValue {
            #expect(object.keys == other.keys)
            #expect(object.count == other.count && object.isEmpty == other.isEmpty)
            #expect(object.members == other.members)
            #expect(Array(object) == Array(other))
            #expect(object.dictionary == other.dictionary)
            #expect(object.hashValue == other.hashValue)
            for key in other.keys { #expect(object[key] == other[key]) }
            #expect(object["missing"] == nil)
        }
    }

    @Test func differentContentIsUnequalBothWays() throws {
        let lazy = try lazy(#"[{"a":1,"b":{"c":2}},{"a":1,"b":{"c":2}}]"#)
        let other = try inMemory(#"[{"a":1,"b":{"c":3}}]"#)
        #expect(lazy[0] == lazy[1], "two objects of one document with the same content")
        #expect(lazy[0] != other[0] && other[0] != lazy[0])
        let byHand: JSON = ["b": ["c": 2], "a": 1]
        #expect(lazy[0] == byHand && byHand == lazy[0], "order does not matter")
        #expect(lazy[0]?.hashValue == byHand.hashValue)
        #expect(lazy[0] != ["a": 1] && ["a": 1] != lazy[0])
    }

    @Test func changingASharedLazyObjectCopiesIt() throws {
        let json = try lazy(#"[{"a":1,"b":{"c":2}},{"a":3}]"#)
        var first = try #require(json[0]?.objectValue)
        let copy = first
        first["a"] = 10
        first["z"] = "new"
        #expect(!readsThroughDocument(first))
        #expect(readsThroughDocument(copy))
        #expect(first.keys == ["a", "b", "z"] && first["a"] == 10 && first["b"] == ["c": 2])
        #expect(copy.keys == ["a", "b"] && copy["a"] == 1 && copy["z"] == nil)
        #expect(json == [["a": 1, "b": ["c": 2]], ["a": 3]], "the parsed tree is unchanged")

        var removed = copy
        removed["a"] = nil
        #expect(removed.keys == ["b"] && copy.keys == ["a", "b"])

        var elements = try #require(json.arrayValue)
        var outer = try #require(elements[0].objectValue)
        var inner = try #require(outer["b"]?.objectValue)
        #expect(readsThroughDocument(inner))
        inner["c"] = 5
        outer["b"] = .object(inner)
        elements[0] = .object(outer)
        let tree = JSON.array(elements)
        #expect(tree[0]?["b"]?["c"] == 5 && json[0]?["b"]?["c"] == 2)
        #expect(tree != json)
    }

    @Test func nestedObjectsInArraysReadThroughTheDocument() throws {
        let text = #"[[{"a":{"b":[{"c":"d"}]}}],{"x":[[{"y":1}],{"z":null}]}]"#
        let json = try lazy(text)
        #expect(json["0.0.a.b.0.c"] == "d")
        #expect(json["1.x.0.0.y"] == 1)
        #expect(json["1.x.1.z"] == .null)
        let nested = try #require(json[0]?[0]?["a"]?.objectValue)
        #expect(readsThroughDocument(nested))
        #expect(json == (try inMemory(text)))
    }

    @Test(arguments: [JSONParsingOptions.DuplicateKeyPolicy.useLast, .useFirst])
    func repeatedKeysFollowThePolicyAsInMemory(policy: JSONParsingOptions.DuplicateKeyPolicy) throws {
        let large = "{" + (0..<20).map { #""k\#($0 % 18)":\#($0)"# }.joined(separator: ",") + "}"
        for text in [#"{"a":1,"b":2,"a":3}"#, #"[{"a":{"x":1,"x":2},"a":{"y":3}}]"#, large] {
            let lazy = try lazy(text, policy)
            let built = try inMemory(text, policy)
            #expect(lazy == built && built == lazy, "\(text)")
            #expect(lazy.serialized() == built.serialized(), "\(text)")
            #expect(lazy.hashValue == built.hashValue)
            let object = try #require(lazy.objectValue ?? lazy[0]?.objectValue)
            let other = try #require(built.objectValue ?? built[0]?.objectValue)
            #expect(object.keys == other.keys && object.count == other.count)
            for key in other.keys { #expect(object[key] == other[key], "\(text) \(key)") }
        }
    }

    @Test func repeatedKeysAreRejectedWhereTheInMemoryParseRejectsThem() throws {
        // The outer object's repeat comes after the inner one's in the text.
        for text in [#"{"a":1,"b":2,"a":3}"#, #"{"o":{"x":1,"x":2},"o":3}"#, "[\n{\"a\":{\"b\":1},\n \"a\":2}]"] {
            let options = JSONParsingOptions(duplicateKeys: .reject)
            let lazyError = #expect(throws: HotPotatoError.self) { try JSON(parsing: text, options: options) }
            var builtError: JSONSyntaxError?
            do { _ = try JSONBackend.parseInMemory(Data(text.utf8), options: options) } catch { builtError = error }
            let expected = try #require(builtError)
            #expect(lazyError?.code == .invalidJSON)
            #expect(lazyError?.byteOffset == expected.offset, "\(text)")
            #expect(lazyError?.line == expected.line && lazyError?.column == expected.column, "\(text)")
            #expect(lazyError?.intermediate?.data == Data(text.utf8))
        }
    }

    @Test func invalidDocumentsReportWhereAsBefore() throws {
        for text in [#"{"a":1,}"#, "[{\"a\":\n tru}]", #"{"a":"#, "", "  ", #"[{"a":1}] x"#] {
            let error = #expect(throws: HotPotatoError.self) { try JSON(parsing: text) }
            var builtError: JSONSyntaxError?
            do { _ = try JSONBackend.parseInMemory(Data(text.utf8)) } catch { builtError = error }
            let expected = try #require(builtError)
            #expect(error?.code == .invalidJSON)
            #expect(error?.byteOffset == expected.offset && error?.line == expected.line && error?.column == expected.column, "\(text)")
            #expect(error?.intermediate?.data == Data(text.utf8))
        }
    }

    @Test func aByteOrderMarkIsSkipped() throws {
        let data = Data([0xEF, 0xBB, 0xBF]) + Data(#"{"a":{"b":"c"}}"#.utf8)
        let json = try JSON(parsing: data)
        #expect(json["a.b"] == "c")
        #expect(json == (try JSONBackend.parseInMemory(data)))
    }

    @Test func serialisationRoundTrips() throws {
        let text = Self.documents[0]
        let json = try lazy(text)
        #expect(try JSON(parsing: json.serialized()) == json)
        #expect(try JSON(parsing: json.serializedData(pretty: true)) == json)
        let encoded = try JSONEncoder().encode(json)
        #expect(try JSONDecoder().decode(JSON.self, from: encoded) == json)
        #expect(try lazy(String(decoding: encoded, as: UTF8.self)) == (try inMemory(text)))
    }

    private struct User: Codable, Equatable {
        var id: Int
        var name: String
        var address: Address?
        var tags: [String]
        struct Address: Codable, Equatable { var city: String }
    }

    @Test func decodingFromALazyTreeMatchesDecodingTheBytes() throws {
        let text = #"[{"id":1,"name":"a","address":{"city":"x"},"tags":["t"]},{"tags":[],"name":"b","id":2}]"#
        let fromTree = try lazy(text).decode([User].self)
        let fromBytes = try JSON.decode([User].self, from: Data(text.utf8))
        #expect(fromTree == fromBytes)
        #expect(fromTree == (try inMemory(text).decode([User].self)))
        let snake = try lazy(#"{"user_id":7,"first_name":"n"}"#)
        struct Snake: Decodable, Equatable { var userId: Int; var firstName: String }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        #expect(try snake.decode(Snake.self, using: decoder) == Snake(userId: 7, firstName: "n"))
    }

    @Test func manyTasksReadOneLazyTreeAtOnce() async throws {
        let text = "[" + (0..<64).map { index in
            "{" + (0..<24).map { #""k\#($0)":{"v":\#(index * 100 + $0)}"# }.joined(separator: ",") + "}"
        }.joined(separator: ",") + "]"
        let json = try lazy(text)
        let expected = try inMemory(text)
        let results = await withTaskGroup(of: Bool.self) { group in
            for task in 0..<16 {
                group.addTask {
                    var ok = true
                    for round in 0..<20 {
                        let index = (task * 7 + round) % 64
                        let object = json[index]?.objectValue
                        ok = ok && object?["k\(round % 24)"]?["v"] == .number(JSON.Number(Int64(index * 100 + round % 24)))
                        ok = ok && object?.count == 24
                        ok = ok && json[index] == expected[index]
                        ok = ok && json[index]?.hashValue == expected[index]?.hashValue
                        ok = ok && json[index]?.serialized() == expected[index]?.serialized()
                    }
                    return ok
                }
            }
            var all: [Bool] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 16 && results.allSatisfy { $0 })
    }

    @Test func documentsWithoutObjectsAreBuiltInMemory() throws {
        let json = try lazy(#"[[1,2],[3,"four"],[]]"#)
        #expect(json == [[1, 2], [3, "four"], []])
        let withBraceInString = try lazy(#"["{",{"a":1}]"#)
        #expect(withBraceInString[1]?["a"] == 1)
    }

    private static let head = ResponseHead(status: 200, headers: HTTPHeaders(["Content-Type": "application/json"]))

    private func chunks(_ text: String, size: Int) -> [Data] {
        let data = Data(text.utf8)
        return stride(from: 0, to: data.count, by: size).map { data[$0..<min($0 + size, data.count)] }
    }

    @Test(arguments: [1, 3, 7, 1000])
    func theHandlersTreeReadsThroughTheBodyWhenItsFirstChunkHasAnObject(chunkSize: Int) throws {
        for text in Self.documents + [#"[[1,2],[3,{"a":{"b":1}}]]"#, #"  [1, 2, {"late": {"x": [1]}}]"#] {
            let parser = JSONParser()
            let json = try ResponseDriver.run(parser, head: Self.head, chunks: chunks(text, size: chunkSize))
            #expect(json == (try inMemory(text)), "\(text)")
            #expect(json.serialized() == (try inMemory(text)).serialized())
        }
        let text = #"{"data":{"users":[{"id":1},{"id":2}]}}"#
        let parser = JSONParser(atKeyPath: "data.users")
        let users = try ResponseDriver.run(parser, head: Self.head, chunks: chunks(text, size: chunkSize))
        #expect(users == [["id": 1], ["id": 2]])
        if chunkSize >= 3 { #expect(readsThroughDocument(try #require(users[0]?.objectValue))) }
    }

    @Test func theHandlerRejectsRepeatedKeysAndReportsErrorsAsBefore() throws {
        for text in [#"{"o":{"x":1,"x":2},"o":3}"#, #"[{"a":1},{"a":1,"a":2}]"#, #"{"a":1,}"#, #"{"a":[1,2}"#] {
            let options = JSONParsingOptions(duplicateKeys: .reject)
            let error = #expect(throws: HotPotatoError.self) {
                try ResponseDriver.run(JSONParser(parsingOptions: options), head: Self.head, chunks: chunks(text, size: 4))
            }
            var builtError: JSONSyntaxError?
            do { _ = try JSONBackend.parseInMemory(Data(text.utf8), options: options) } catch { builtError = error }
            let expected = try #require(builtError)
            #expect(error?.code == .invalidJSON)
            #expect(error?.byteOffset == expected.offset && error?.line == expected.line && error?.column == expected.column, "\(text)")
            #expect(error?.intermediate?.data == Data(text.utf8))
        }
    }
}
