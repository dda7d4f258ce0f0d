import Foundation
import Testing
@testable import HotPotato

/// A `JSON.Object` keeps its keys apart from its values, and the parser gives objects with the
/// same keys one shared key set (predicted from the last object at the same depth, or found again
/// in a cache). These tests hold that sharing to being invisible: equality, hashing, mutation of a
/// shared tree, duplicate keys, objects that stop matching the prediction part-way, large
/// (indexed) objects, non-ASCII and escaped keys, deep nesting.
@Suite struct JSONObjectKeysTests {
    /// The objects of a top-level array: read through the document (`JSON(parsing:)`), or built
    /// in memory by the parser (the path of documents of 4 GiB or more), where the sharing is.
    private func objects(
        _ text: String, _ policy: JSONParsingOptions.DuplicateKeyPolicy = .useLast, inMemory: Bool = false
    ) throws -> [JSON.Object] {
        let options = JSONParsingOptions(duplicateKeys: policy)
        let json = inMemory ? try JSONBackend.parseInMemory(Data(text.utf8), options: options) : try JSON(parsing: text, options: options)
        return try #require(json.arrayValue).map { try #require($0.objectValue) }
    }

    @Test(arguments: [false, true]) func recordsShareTheirKeysAndStayEqualToObjectsMadeByHand(inMemory: Bool) throws {
        let parsed = try objects(#"[{"id":1,"name":"a"},{"id":2,"name":"b"},{"id":1,"name":"a"}]"#, inMemory: inMemory)
        #expect(!inMemory || parsed[0].keySet === parsed[1].keySet, "the same keys in the same order are shared")
        #expect(parsed[0] == parsed[2])
        #expect(parsed[0] != parsed[1])
        let byHand: JSON.Object = ["name": "a", "id": 1]
        #expect(parsed[0] == byHand, "order does not matter")
        #expect(byHand == parsed[0])
        #expect(parsed[0].hashValue == byHand.hashValue)
        #expect(Set([JSON.object(parsed[0]), .object(parsed[2]), .object(byHand)]).count == 1)
        #expect(parsed[0] != ["id": 1, "name": "a", "extra": .null] as JSON.Object)
    }

    @Test func changingOneObjectOfASharedTreeLeavesTheOthersAlone() throws {
        let json = try JSON(parsing: #"[{"a":1,"b":2},{"a":3,"b":4}]"#)
        var elements = try #require(json.arrayValue)
        var first = try #require(elements[0].objectValue)
        first["c"] = 5
        first["a"] = nil
        first["b"] = "two"
        elements[0] = .object(first)
        #expect(first.keys == ["b", "c"])
        #expect(first.members == [JSON.Object.Member(key: "b", value: "two"), JSON.Object.Member(key: "c", value: 5)])
        let second = try #require(elements[1].objectValue)
        #expect(second.keys == ["a", "b"])
        #expect(second["a"] == 3 && second["b"] == 4 && second["c"] == nil)
        #expect(json == [["a": 1, "b": 2], ["a": 3, "b": 4]], "the parsed tree is unchanged")
        first["b"] = nil
        first["c"] = nil
        #expect(first.isEmpty && first.keys.isEmpty && first == JSON.Object())
    }

    @Test func objectsThatStopMatchingThePredictionKeepTheirOwnKeys() throws {
        let parsed = try objects(
            #"[{"a":1,"b":2},{"a":1,"c":3},{"a":1},{"a":1,"c":3,"d":4},{"c":1,"a":2},{},{"a":1,"c":3}]"#)
        #expect(parsed.map(\.keys) == [["a", "b"], ["a", "c"], ["a"], ["a", "c", "d"], ["c", "a"], [], ["a", "c"]])
        #expect(parsed[3]["d"] == 4 && parsed[4]["c"] == 1 && parsed[4]["a"] == 2)
        #expect(parsed.map(\.count) == [2, 2, 1, 3, 2, 0, 2])
    }

    @Test(arguments: [JSONParsingOptions.DuplicateKeyPolicy.useLast, .useFirst, .reject])
    func aRepeatedKeyAfterPredictedOnesFollowsThePolicy(policy: JSONParsingOptions.DuplicateKeyPolicy) throws {
        let text = #"[{"a":1,"b":2},{"a":3,"a":4},{"a":5,"b":6,"b":7}]"#
        guard policy != .reject else {
            #expect(throws: HotPotatoError.self) { try objects(text, policy) }
            return
        }
        let parsed = try objects(text, policy)
        #expect(parsed[1].keys == ["a"])
        #expect(parsed[1]["a"] == (policy == .useLast ? 4 : 3))
        #expect(parsed[2].keys == ["a", "b"])
        #expect(parsed[2]["b"] == (policy == .useLast ? 7 : 6))
    }

    @Test(arguments: [false, true]) func largeObjectsAreIndexedWhetherPredictedOrNot(inMemory: Bool) throws {
        let keys = (0..<20).map { "key\($0)" }
        func object(_ keys: [String], offset: Int) -> String {
            "{" + keys.enumerated().map { #""\#($0.element)":\#($0.offset + offset)"# }.joined(separator: ",") + "}"
        }
        var repeated = keys
        repeated[18] = "key3"
        let text = "[" + [object(keys, offset: 0), object(keys, offset: 100), object(repeated, offset: 200), object(keys.reversed(), offset: 300)]
            .joined(separator: ",") + "]"
        let parsed = try objects(text, inMemory: inMemory)
        #expect(!inMemory || parsed[0].keySet.positions != nil && parsed[0].keySet === parsed[1].keySet)
        #expect(parsed[1]["key19"] == 119 && parsed[1]["key0"] == 100)
        #expect(parsed[2].count == 19 && parsed[2]["key3"] == 218, "the last value wins, in the first key's place")
        #expect(parsed[2].keys[3] == "key3" && parsed[2]["key18"] == nil)
        #expect(parsed[3]["key0"] == 319 && parsed[3].keys.first == "key19")
        #expect(throws: (any Error).self) { try objects(text, .reject, inMemory: inMemory) }
    }

    @Test func keysAreComparedByTheirBytesEvenWhenPredicted() throws {
        let parsed = try objects(#"[{"é":1,"x":2},{"e\u0301":3,"x":4},{"\u00e9":5,"x":6},{"":7,"x":8},{"":9,"y":10}]"#)
        #expect(Array(parsed[0].keys[0].utf8) == Array("\u{E9}".utf8))
        #expect(Array(parsed[1].keys[0].utf8) == Array("e\u{301}".utf8))
        #expect(parsed[1]["\u{E9}"] == nil && parsed[1]["e\u{301}"] == 3)
        #expect(parsed[2].keys == parsed[0].keys && parsed[2]["\u{E9}"] == 5, "an escaped key is the key it spells")
        #expect(parsed[0] != parsed[1])
        #expect(parsed[3].keys == ["", "x"] && parsed[4].keys == ["", "y"] && parsed[4][""] == 9)
    }

    @Test func deepNestingAndHugeNumbersSurvive() throws {
        let depth = 300
        let text = String(repeating: #"{"a":1,"b":"#, count: depth) + "12345678901234567890123456789" + String(repeating: "}", count: depth)
        var json = try JSON(parsing: text)
        for _ in 0..<depth {
            let object = try #require(json.objectValue)
            #expect(object.keys == ["a", "b"] && object["a"] == 1)
            json = try #require(object["b"])
        }
        #expect(json.numberValue?.text == "12345678901234567890123456789")
        #expect(try JSON(parsing: text) == JSON(parsing: text))
    }

    @Test func membersIterationAndSerializationFollowTheKeys() throws {
        let json = try JSON(parsing: #"[{"z":1,"y":[true,null],"x":{"w":"v"}},{"z":2,"y":[],"x":{}}]"#)
        let object = try #require(json[0]?.objectValue)
        #expect(object.members.map(\.key) == ["z", "y", "x"])
        #expect(object.map(\.value) == [1, [true, .null], ["w": "v"]])
        #expect(object.dictionary == ["z": 1, "y": [true, .null], "x": ["w": "v"]])
        #expect(json.serialized() == #"[{"z":1,"y":[true,null],"x":{"w":"v"}},{"z":2,"y":[],"x":{}}]"#)
        #expect(try JSON(parsing: json.serialized()) == json)
    }
}
