import Foundation
import Testing
@testable import HotPotato

/// The tape decoder knows a value by its tape entry and works a coding path out from the tape
/// when asked; its keyed containers keep their key hints and key tables in slots of the decoder.
/// These compare it with the decoder of ``JSON`` values, which keeps a node per level, and with
/// `JSONDecoder`.
@Suite struct JSONTapeCodingPathTests {
    typealias Path = JSONValueDecoderTests.Path

    static func describe(_ path: [any CodingKey]) -> String {
        JSONValueDecoderTests.describe(path).joined(separator: "/")
    }

    /// Records the coding path of every decoder and container it is given.
    final class Recorder: @unchecked Sendable {
        var paths: [String] = []
    }

    static let recorderKey = CodingUserInfoKey(rawValue: "recorder")!

    struct Leaf: Decodable {
        let value: Int
        init(from decoder: any Decoder) throws {
            let recorder = decoder.userInfo[JSONTapeCodingPathTests.recorderKey] as! Recorder
            recorder.paths.append("decoder " + JSONTapeCodingPathTests.describe(decoder.codingPath))
            let container = try decoder.container(keyedBy: AnyKey.self)
            recorder.paths.append("keyed " + JSONTapeCodingPathTests.describe(container.codingPath))
            value = try container.decode(Int.self, forKey: AnyKey("leafValue"))
            let single = try container.superDecoder(forKey: AnyKey("leafValue")).singleValueContainer()
            recorder.paths.append("super " + JSONTapeCodingPathTests.describe(single.codingPath))
        }
    }

    struct Branch: Decodable {
        let leaves: [Leaf]
        let name: String
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: AnyKey.self)
            var unkeyed = try container.nestedUnkeyedContainer(forKey: AnyKey("theLeaves"))
            let recorder = decoder.userInfo[JSONTapeCodingPathTests.recorderKey] as! Recorder
            recorder.paths.append("unkeyed " + JSONTapeCodingPathTests.describe(unkeyed.codingPath))
            var leaves: [Leaf] = []
            while !unkeyed.isAtEnd { leaves.append(try unkeyed.decode(Leaf.self)) }
            self.leaves = leaves
            name = try container.decode(String.self, forKey: AnyKey("branchName"))
        }
    }

    typealias AnyKey = JSONValueDecoderTests.AnyKey

    static let snakeText = """
        {"root_list": [{"the_leaves": [{"leaf_value": 1}, {"leaf_value": 2}], "branch_name": "a"},
                       {"branch_name": "b", "the_leaves": [{"leaf_value": 3}]}]}
        """

    /// Every path the decoders and containers report, for `text` decoded with `decoder`.
    static func recordedPaths(_ text: String, _ path: Path, using decoder: JSONDecoder, atKeyPath keyPath: String? = nil) throws -> [String] {
        let recorder = Recorder()
        decoder.userInfo[recorderKey] = recorder
        if let keyPath {
            _ = try JSONValueDecoderTests.decode([Branch].self, text, path, using: decoder, atKeyPath: keyPath)
        } else {
            _ = try JSONValueDecoderTests.decode([String: [Branch]].self, text, path, using: decoder)
        }
        return recorder.paths
    }

    @Test func pathsUnderConvertedKeysAreTheValueDecodersPaths() throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let tape = try Self.recordedPaths(Self.snakeText, .tape, using: decoder)
        #expect(tape == (try Self.recordedPaths(Self.snakeText, .value, using: decoder)))
        #expect(tape.contains("super root_list/Index 1/theLeaves/Index 0/leafValue"), "\(tape)")
        #expect(tape.contains("unkeyed root_list/Index 0/theLeaves"), "dictionary keys are data: left as written")
        #expect(tape.contains("keyed root_list/Index 0/theLeaves/Index 1"), "\(tape)")
    }

    @Test func pathsUnderACustomKeyStrategyAreTheValueDecodersPaths() throws {
        func run(_ path: Path) throws -> (paths: [String], seen: Set<String>) {
            let seen = Recorder()
            let decoder = JSONDecoder()
            // Told the coding path down to the key, as JSONDecoder's strategy is.
            decoder.keyDecodingStrategy = .custom { path in
                seen.paths.append(Self.describe(path))
                return AnyKey(JSONDecodingStrategies.camelCase(fromSnakeCase: path.last!.stringValue))
            }
            return (try Self.recordedPaths(Self.snakeText, path, using: decoder), Set(seen.paths))
        }
        let tape = try run(.tape)
        let value = try run(.value)
        #expect(tape.paths == value.paths)
        #expect(tape.paths.contains("decoder root_list/Index 1/theLeaves/Index 0"), "\(tape.paths)")
        #expect(tape.seen.isSuperset(of: value.seen), "the strategy is told the same paths")
        #expect(tape.seen.contains("root_list/Index 1/theLeaves/Index 0/leaf_value"), "\(tape.seen)")
    }

    @Test(arguments: Path.allCases) func pathsStartAtTheKeyPath(path: Path) throws {
        let text = #"{"data": {"branches": [{"theLeaves": [{"leafValue": 5}], "branchName": "x"}]}}"#
        let paths = try Self.recordedPaths(text, path, using: JSONDecoder(), atKeyPath: "data.branches")
        #expect(paths == ["unkeyed Index 0/theLeaves", "decoder Index 0/theLeaves/Index 0", "keyed Index 0/theLeaves/Index 0",
                          "super Index 0/theLeaves/Index 0/leafValue"])
    }

    @Test func errorPathsDeepInALargeArrayAreJSONDecoders() throws {
        struct Row: Decodable { let cells: [Cell] }
        struct Cell: Decodable { let value: Int8 }
        // Rows before the bad one, so that the path walks past them; JSONDecoder's paths name the
        // keys and indices the same way.
        let rows = (0..<300).map { #"{"cells": [{"value": \#($0 % 100)}, {"value": 1}]}"# }
        for bad in [0, 1, 299, 150] {
            var broken = rows
            broken[bad] = #"{"cells": [{"value": 1}, {"value": "1"}]}"#
            let text = "[" + broken.joined(separator: ",") + "]"
            let ours = JSONValueDecoderTests.decodingError { try JSONValueDecoderTests.decode([Row].self, text, .tape) }
            let theirs = JSONValueDecoderTests.decodingError { try JSONDecoder().decode([Row].self, from: Data(text.utf8)) }
            #expect(JSONValueDecoderTests.summary(ours) == "typeMismatch Int8 \(["Index \(bad)", "cells", "Index 1", "value"])")
            #expect(JSONValueDecoderTests.summary(ours) == JSONValueDecoderTests.summary(theirs))
        }
    }

    /// Asking one decoder for the paths of an array's elements out of order: the walk remembers
    /// the last element it went through, and must not start from it for an earlier one.
    @Test func pathsOfContainersAskedForOutOfOrder() throws {
        struct Kept: Decodable {
            let paths: [String]
            init(from decoder: any Decoder) throws {
                var unkeyed = try decoder.unkeyedContainer()
                var containers: [KeyedDecodingContainer<AnyKey>] = []
                while !unkeyed.isAtEnd { containers.append(try unkeyed.nestedContainer(keyedBy: AnyKey.self)) }
                paths = (containers.reversed() + [containers[3], containers[1], containers[4], containers[0]]).map {
                    JSONTapeCodingPathTests.describe($0.codingPath)
                }
            }
        }
        let kept = try JSON.decode(Kept.self, from: Data(#"[{"a":[1,2]},{},{"b":{"c":3}},{"d":4},{}]"#.utf8))
        #expect(kept.paths == ["Index 4", "Index 3", "Index 2", "Index 1", "Index 0", "Index 3", "Index 1", "Index 4", "Index 0"])
    }

    /// The same, each element's decoder a decoder of its own.
    @Test func pathsOfElementsAskedForOutOfOrder() throws {
        struct Kept: Decodable {
            let decoders: [any Decoder]
            let paths: [String]
            init(from decoder: any Decoder) throws {
                var unkeyed = try decoder.unkeyedContainer()
                var decoders: [any Decoder] = []
                while !unkeyed.isAtEnd { decoders.append(try unkeyed.superDecoder()) }
                self.decoders = decoders
                paths = decoders.reversed().map { JSONTapeCodingPathTests.describe($0.codingPath) }
                    + [decoders[3], decoders[1], decoders[4]].map { JSONTapeCodingPathTests.describe($0.codingPath) }
            }
        }
        let kept = try JSON.decode(Kept.self, from: Data("[[1],{\"a\":2},3,[4,[5]],6]".utf8))
        #expect(kept.paths == ["Index 4", "Index 3", "Index 2", "Index 1", "Index 0", "Index 3", "Index 1", "Index 4"])
    }

    // MARK: - Key hints and key tables in slots

    /// A tree deeper than the decoder has hint slots (64) and key-table slots (16), whose types
    /// ask for a key after decoding their children: the children's objects take the parent's
    /// slot, and the parent must still find its key.
    final class Node: Decodable, Equatable {
        let children: [Node]
        let label: String
        let size: Int

        enum CodingKeys: String, CodingKey { case children, label, size }

        static func == (lhs: Node, rhs: Node) -> Bool {
            lhs.children == rhs.children && lhs.label == rhs.label && lhs.size == rhs.size
        }

        static func text(depth: Int, width: Int, key: (String) -> String = { $0 }) -> String {
            func node(_ level: Int, _ index: Int) -> String {
                let children = level == depth ? "" : (0..<(level < 2 ? width : 1)).map { node(level + 1, $0) }.joined(separator: ",")
                return "{\"\(key("label"))\":\"n\(level).\(index)\",\"\(key("children"))\":[\(children)],\"\(key("size"))\":\(level * 10 + index)}"
            }
            return node(0, 0)
        }
    }

    /// An object whose hint slot an object inside it takes, leaving there a hint to a key that
    /// is spelled like the outer object's next one: the outer object must not take it.
    @Test func aHintLeftByAnotherObjectIsNotTaken() throws {
        struct Outer: Decodable { let child: Child; let value: Int }
        struct Child: Decodable { let pad: [Int]; let inner: Inner }
        struct Inner: Decodable { let a: Int }
        // Outer is entry 0; with 58 numbers of padding, Inner is entry 64, the same slot.
        let padding = Array(repeating: "0", count: JSONTapeKeyHints.slotCount - 6).joined(separator: ",")
        let text = #"{"child": {"pad": [\#(padding)], "inner": {"a": 1, "value": 99}}, "value": 2}"#
        let outer = try JSON.decode(Outer.self, from: Data(text.utf8))
        #expect(outer.child.inner.a == 1)
        #expect(outer.value == 2)
    }

    @Test func keysAreFoundWhenNestedObjectsTakeTheirHintSlots() throws {
        let text = Node.text(depth: 150, width: 3)
        let ours = try JSON.decode(Node.self, from: Data(text.utf8))
        #expect(ours == (try JSONDecoder().decode(Node.self, from: Data(text.utf8))))
    }

    @Test func convertedKeysAreFoundWhenNestedObjectsTakeTheirTableSlots() throws {
        let text = Node.text(depth: 60, width: 2) { $0 == "children" ? "child_nodes" : "the_\($0)" }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .custom { path in
            let key = path.last!.stringValue
            return AnyKey(key == "child_nodes" ? "children" : String(key.dropFirst(4)))
        }
        let ours = try JSON.decode(Node.self, from: Data(text.utf8), using: decoder)
        #expect(ours == (try decoder.decode(Node.self, from: Data(text.utf8))))
        #expect(ours.children.first?.children.first?.label == "n2.0")
    }

    @Test(arguments: [JSONParsingOptions.DuplicateKeyPolicy.useFirst, .useLast])
    func repeatedKeysFollowThePolicyWhenNestedObjectsTakeTheirTableSlots(policy: JSONParsingOptions.DuplicateKeyPolicy) throws {
        // Every object repeats its label, after its children.
        let text = Node.text(depth: 40, width: 2).replacingOccurrences(of: ",\"size\"", with: ",\"label\":\"again\",\"size\"")
        var options = JSONParsingOptions()
        options.duplicateKeys = policy
        let ours = try JSON.decode(Node.self, from: Data(text.utf8), options: options)
        var node: Node? = ours
        var depth = 0
        while let current = node {
            #expect(current.label == (policy == .useFirst ? "n\(depth).0" : "again"))
            #expect(current.size == depth * 10)
            node = current.children.first
            depth += 1
        }
        #expect(depth == 41)
    }
}
