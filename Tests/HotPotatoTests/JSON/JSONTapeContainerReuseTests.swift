import Foundation
import Testing
@testable import HotPotato

/// The tape decoder gives a keyed container out again for the next object of its key type once
/// nothing holds it: containers still held must keep reading their own objects.
@Suite struct JSONTapeContainerReuseTests {
    private enum Key: String, CodingKey { case v, x, y, children }

    /// Holds three containers of one key type at once, and reads them in reverse.
    private struct Held: Decodable {
        let values: [Int]

        init(from decoder: any Decoder) throws {
            let outer = try decoder.container(keyedBy: Key.self)
            let first = try outer.nestedContainer(keyedBy: Key.self, forKey: .x)
            let second = try outer.nestedContainer(keyedBy: Key.self, forKey: .y)
            values = [try second.decode(Int.self, forKey: .v), try first.decode(Int.self, forKey: .v), try outer.decode(Int.self, forKey: .v)]
        }
    }

    private struct Node: Decodable, Equatable {
        let v: Int
        let children: [Node]

        init(v: Int, children: [Node] = []) {
            self.v = v
            self.children = children
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            children = try container.decodeIfPresent([Node].self, forKey: .children) ?? []
            v = try container.decode(Int.self, forKey: .v)
        }
    }

    /// The layout the reuse depends on is checked, not assumed (``KeyedContainerReuse``); on the
    /// toolchains HotPotato supports the check passes, so the reuse (and the tests below) run.
    @Test func theContainersLayoutIsCheckedAndHolds() {
        #expect(KeyedContainerReuse.isSupported, "KeyedDecodingContainer is no longer one reference: containers are made afresh")
    }

    @Test func containersHeldAtOnceReadTheirOwnObjects() throws {
        let data = Data(#"[{"v":1,"x":{"v":2},"y":{"v":3}},{"v":4,"x":{"v":5},"y":{"v":6}}]"#.utf8)
        let held = try JSON.decode([Held].self, from: data)
        #expect(held.map(\.values) == [[3, 2, 1], [6, 5, 4]])
    }

    @Test func nestedObjectsOfOneTypeAreEachTheirOwn() throws {
        let data = Data(#"{"v":1,"children":[{"v":2,"children":[{"v":3},{"v":4}]},{"v":5},{"children":[],"v":6}]}"#.utf8)
        let node = try JSON.decode(Node.self, from: data)
        #expect(node == Node(v: 1, children: [Node(v: 2, children: [Node(v: 3), Node(v: 4)]), Node(v: 5), Node(v: 6)]))
        let many = Data(("[" + (0..<40).map { #"{"v":\#($0),"children":[{"v":\#($0 * 10)}]}"# }.joined(separator: ",") + "]").utf8)
        let nodes = try JSON.decode([Node].self, from: many)
        #expect(nodes == (0..<40).map { Node(v: $0, children: [Node(v: $0 * 10)]) })
    }
}
