extension JSON {
    /// A JSON object: its members in the order the document gave them, each key once.
    ///
    /// Lookups by key are what you expect of a dictionary (`object["name"]`); iteration follows the
    /// document's order, so a value read and written back keeps its shape. Small objects are
    /// searched directly; objects with more than 16 members carry an index. Two objects are equal
    /// when they have the same keys with equal values, in any order (RFC 8259: objects are
    /// unordered).
    ///
    /// Keys are compared by their UTF-8 bytes, as RFC 8259 §8.3 describes, not by Swift's `String`
    /// comparison: `"é"` (precomposed) and `"e\u{301}"` (an `e` and a combining accent) are two
    /// keys, in objects of any size, as they are in the JSON text. ``dictionary`` is the exception:
    /// a Swift `Dictionary` merges them.
    public struct Object: Sendable {
        /// One member: a key and its value. Two members are equal when their keys have the same
        /// UTF-8 bytes and their values are equal.
        public struct Member: Sendable, Hashable {
            /// The member's key.
            public var key: String
            /// The member's value.
            public var value: JSON

            /// Creates a member.
            public init(key: String, value: JSON) {
                self.key = key
                self.value = value
            }

            /// Whether the keys have the same UTF-8 bytes and the values are equal.
            public static func == (lhs: Member, rhs: Member) -> Bool {
                JSONMemberName.same(lhs.key, rhs.key) && lhs.value == rhs.value
            }

            /// Hashes the key's bytes and the value.
            public func hash(into hasher: inout Hasher) {
                hasher.combine(JSONMemberName(key))
                hasher.combine(value)
            }
        }

        /// The members, in order, each key once.
        public private(set) var members: [Member]
        private var index: KeyIndex?

        /// Objects with more members than this get an index for their lookups.
        static let indexThreshold = 16

        /// Creates an empty object.
        public init() {
            members = []
        }

        /// Creates an object from members in order; when a key repeats, the last value wins, in the
        /// first key's place.
        public init(_ members: some Sequence<Member>) {
            self.init()
            for member in members { self[member.key] = member.value }
        }

        /// Creates an object from members already known to have unique keys (the parser's case).
        init(uniqueMembers: [Member]) {
            members = uniqueMembers
            if uniqueMembers.count > Self.indexThreshold { index = KeyIndex(uniqueMembers) }
        }

        /// Creates an object from members with unique keys and, when the caller has it, the
        /// key → position table for them.
        init(uniqueMembers: [Member], positions: [JSONMemberName: Int]?) {
            members = uniqueMembers
            if uniqueMembers.count > Self.indexThreshold {
                index = positions.map(KeyIndex.init(positions:)) ?? KeyIndex(uniqueMembers)
            }
        }

        /// Creates an object from a dictionary, its keys sorted so that the order is stable.
        public init(_ dictionary: [String: JSON]) {
            self.init(uniqueMembers: dictionary.keys.sorted().map { Member(key: $0, value: dictionary[$0]!) })
        }

        /// The value of the member `key`, or `nil`. Setting a value adds the member at the end or
        /// replaces it in place; setting `nil` removes it.
        public subscript(key: String) -> JSON? {
            get { position(of: key).map { members[$0].value } }
            set {
                switch (position(of: key), newValue) {
                case let (position?, value?):
                    members[position].value = value
                case let (nil, value?):
                    members.append(Member(key: key, value: value))
                    if index != nil || members.count > Self.indexThreshold { index = KeyIndex(members) }
                case let (position?, nil):
                    members.remove(at: position)
                    index = members.count > Self.indexThreshold ? KeyIndex(members) : nil
                case (nil, nil):
                    break
                }
            }
        }

        /// The keys, in order.
        public var keys: [String] { members.map(\.key) }

        /// The number of members.
        public var count: Int { members.count }

        /// Whether the object has no members.
        public var isEmpty: Bool { members.isEmpty }

        /// The members as a dictionary (order is lost). Keys that differ only in their Unicode
        /// normalization are one key to a Swift `Dictionary`: of those, the last member wins.
        public var dictionary: [String: JSON] {
            Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
        }

        /// Where the member `key` is.
        func position(of key: String) -> Int? {
            if let index { return index.positions[JSONMemberName(key)] }
            return members.firstIndex { JSONMemberName.same($0.key, key) }
        }
    }
}

/// A key → position table for large objects, shared between copies of an object.
final class KeyIndex: Sendable {
    let positions: [JSONMemberName: Int]

    init(_ members: [JSON.Object.Member]) {
        var positions = [JSONMemberName: Int](minimumCapacity: members.count)
        for (position, member) in members.enumerated() { positions[JSONMemberName(member.key)] = position }
        self.positions = positions
    }

    init(positions: [JSONMemberName: Int]) {
        self.positions = positions
    }
}

extension JSON.Object: Sequence {
    /// Iterates over the members in order.
    public func makeIterator() -> IndexingIterator<[Member]> {
        members.makeIterator()
    }
}

extension JSON.Object: Hashable {
    /// Whether two objects have the same keys with equal values, in any order.
    public static func == (lhs: JSON.Object, rhs: JSON.Object) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for member in lhs.members {
            guard let other = rhs[member.key], other == member.value else { return false }
        }
        return true
    }

    /// Hashes the members without regard to their order.
    public func hash(into hasher: inout Hasher) {
        var combined = 0
        for member in members {
            var memberHasher = Hasher()
            memberHasher.combine(member)
            combined ^= memberHasher.finalize()
        }
        hasher.combine(count)
        hasher.combine(combined)
    }
}

extension JSON.Object: ExpressibleByDictionaryLiteral {
    /// Creates an object from a literal, keeping the literal's order.
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self.init(elements.map { Member(key: $0.0, value: $0.1) })
    }
}

extension JSON.Object: CustomStringConvertible {
    /// The object as compact JSON.
    public var description: String { JSON.object(self).serialized() }
}
