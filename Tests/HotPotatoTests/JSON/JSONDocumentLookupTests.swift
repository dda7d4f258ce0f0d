import Foundation
import Testing
@testable import HotPotato

/// Reaching into large arrays and objects of a `JSONDocument`: the first lookup in a container of
/// more than 16 children makes a table of where they are; every answer must be the one a walk of
/// the container gives, whatever the size, the duplicate-key policy and the spelling of the keys.
@Suite struct JSONDocumentLookupTests {
    /// An array of `count` objects `{"id":i,"name":"n<i>"}`, inside an object.
    static func list(_ count: Int) -> String {
        #"{"list":["# + (0..<count).map { #"{"id":\#($0),"name":"n\#($0)"}"# }.joined(separator: ",") + "]}"
    }

    @Test(arguments: [0, 1, 16, 17, 200])
    func everyIndexIsTheTreesElement(count: Int) throws {
        let text = Self.list(count)
        let document = try JSONDocument(parsing: text)
        let tree = try JSON(parsing: text)
        let list = try #require(document["list"])
        #expect(list.count == count)
        // Twice, in a scattered order: the second pass reads the table the first one made.
        for _ in 0..<2 {
            for index in (0..<count).map({ ($0 * 7919) % max(count, 1) }) {
                #expect(list[index]?.json == tree["list.\(index)"], "\(index)")
                #expect(document["list.\(index).id"]?.intValue == index)
            }
        }
        for outside in [-1, count, count + 1, Int.max, Int.min] {
            #expect(list[outside] == nil, "\(outside)")
        }
        #expect(document["list.\(count)"] == nil)
        #expect(list.arrayValue?.map(\.json) == tree["list"]?.arrayValue)
    }

    /// An object of `count` members `"k<i>": i`, with escaped keys, a repeated key and two
    /// spellings of `é` (precomposed, and `e` with a combining accent) that are different keys.
    static func object(_ count: Int) -> String {
        var members = (0..<count).map { #""k\#($0)":\#($0)"# }
        members.append(#""\u006b\u0031":"escaped k1""#)  // "k1" again, spelled with escapes
        members.append(#""é":"precomposed""#)
        members.append(#""e\u0301":"combining""#)
        members.append(#""k0":"last k0""#)
        return "{" + members.joined(separator: ",") + "}"
    }

    @Test(arguments: [3, 16, 40])
    func everyKeyFollowsThePolicyAndTheBytes(count: Int) throws {
        let text = Self.object(count)
        for policy in [JSONParsingOptions.DuplicateKeyPolicy.useLast, .useFirst] {
            let document = try JSONDocument(parsing: text, options: JSONParsingOptions(duplicateKeys: policy))
            let tree = try JSON(parsing: text, options: JSONParsingOptions(duplicateKeys: policy))
            for _ in 0..<2 {
                for index in 2..<count {
                    #expect(document[key: "k\(index)"]?.intValue == index, "\(policy) k\(index)")
                }
                #expect(document[key: "k0"]?.json == tree[key: "k0"], "\(policy)")
                #expect(document[key: "k1"]?.json == tree[key: "k1"], "\(policy)")
                #expect(document[key: "k0"]?.json == (policy == .useFirst ? 0 : "last k0"))
                #expect(document[key: "k1"]?.json == (policy == .useFirst ? 1 : "escaped k1"))
                // Each spelling finds its own member, in small objects and large ones alike.
                #expect(document[key: "\u{E9}"]?.stringValue == "precomposed", "\(policy)")
                #expect(document[key: "e\u{301}"]?.stringValue == "combining", "\(policy)")
                #expect(document[key: "k\(count)"] == nil)
                #expect(document[key: "missing"] == nil)
                #expect(document[key: ""] == nil)
            }
            #expect(document.keys?.filter { $0.hasPrefix("k") } == (0..<count).map { "k\($0)" })
        }
    }

    @Test func keyPathsGoThroughLargeContainersAtEveryLevel() throws {
        let inner = "{" + (0..<30).map { #""m\#($0)":[\#((0..<20).map(String.init).joined(separator: ","))]"# }.joined(separator: ",") + "}"
        let text = "[" + Array(repeating: inner, count: 25).joined(separator: ",") + "]"
        let document = try JSONDocument(parsing: text)
        for outer in [0, 16, 17, 24] {
            for key in [0, 17, 29] {
                for element in [0, 16, 19] {
                    #expect(document["\(outer).m\(key).\(element)"]?.intValue == element)
                }
            }
        }
        #expect(document["25.m0.0"] == nil)
        #expect(document["3.m30.0"] == nil)
        #expect(document["3.m0.20"] == nil)
        #expect(document["3.m0.x"] == nil)
    }

    /// On threads of their own (not Swift's cooperative pool, which CPU-bound tasks would hold
    /// from other suites' tests for as long as they run).
    @Test func valuesOfOneDocumentAreReadFromManyThreadsAtOnce() throws {
        let document = try JSONDocument(parsing: Self.list(300))
        let wrong = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 6) { thread in
            var misses = 0
            for step in 0..<300 {
                let index = (step * 31 + thread * 97) % 300
                if document["list.\(index).id"]?.intValue != index { misses += 1 }
                if document["list"]?[index]?[key: "name"]?.stringValue != "n\(index)" { misses += 1 }
            }
            wrong.withLock { $0 += misses }
        }
        #expect(wrong.withLock { $0 } == 0)
    }
}
