extension JSON {
    /// A JSON object: its members in the order the document gave them, each key once.
    ///
    /// Lookups by key are what you expect of a dictionary (`object["name"]`); iteration follows the
    /// document's order, so a value read and written back keeps its shape. Small objects are
    /// searched directly; objects with more than 16 members carry an index. Two objects are equal
    /// when they have the same keys with equal values, in any order (RFC 8259: objects are
    /// unordered).
    ///
    /// An object keeps its keys apart from its values: the objects the parser makes with the same
    /// keys in the same order (the records of a document) share one copy of those keys. Changing
    /// an object's keys gives it a copy of its own; ``members`` is made from the two on each
    /// access.
    ///
    /// An object parsed by ``JSON/init(parsing:options:)-(Data,_)`` or `JSONParser<JSON>` reads
    /// through the parsed document (its bytes and a 12-byte-a-token index of them, as
    /// ``JSONDocument`` keeps) until it is changed: parsing makes no value of its members, and
    /// every read makes the values it returns again from the document (a lookup by key walks or,
    /// above 16 members, indexes the document's object; ``members``, ``keys``, iteration,
    /// comparison and hashing make them all). Changing such an object first copies its members
    /// into it, so that its other copies and the document are unchanged. It behaves exactly as an
    /// object with its members in memory otherwise, and keeps the whole document alive while it
    /// lives.
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

        /// Where an object's members are: in memory (its keys and values), or still in the parsed
        /// document it was read from (see ``JSON/init(parsing:options:)-(Data,_)``).
        enum Representation: Sendable {
            /// The keys, in order, each once (shared with the other objects that have the same
            /// keys in the same order, see ``JSONObjectKeys``), and the values in their order.
            case members(JSONObjectKeys, [JSON])
            /// The object entry `index` of a parsed document's tape: read from the document on
            /// each access, until the object is changed.
            case document(JSONDocument.Storage, Int)
        }

        private(set) var representation: Representation

        /// The keys, in order, each once: shared with the other objects that have the same keys
        /// in the same order (see ``JSONObjectKeys``). Read from the document each time for an
        /// object that reads through one.
        var keySet: JSONObjectKeys {
            switch representation {
            case .members(let keys, _): keys
            case .document(let storage, let index): storage.objectParts(index).keys
            }
        }

        /// The values, in the order of ``keySet``. Made from the document each time for an object
        /// that reads through one.
        var values: [JSON] {
            switch representation {
            case .members(_, let values): values
            case .document(let storage, let index): storage.objectParts(index).values
            }
        }

        /// The keys and values, made once (from the document, for an object that reads through
        /// one).
        var parts: (keys: JSONObjectKeys, values: [JSON]) {
            switch representation {
            case .members(let keys, let values): (keys, values)
            case .document(let storage, let index): storage.objectParts(index)
            }
        }

        /// This object with its members in memory: the same object, which reads no longer
        /// through a document.
        var materialized: JSON.Object {
            switch representation {
            case .members: self
            case .document(let storage, let index): JSON.Object(parts: storage.objectParts(index))
            }
        }

        /// Takes the keys and values out for a change, leaving the object empty (so that the
        /// values are not shared with it while they change); the caller puts them back.
        private mutating func takeParts() -> (keys: JSONObjectKeys, values: [JSON]) {
            let parts = self.parts
            representation = .members(.empty, [])
            return parts
        }

        /// The members, in order, each key once. Made from the object's keys and values on each
        /// access (the object keeps them apart, so that objects with the same keys can share
        /// them): to read members one by one, read ``keys`` and look values up by key, or iterate
        /// the object once.
        public var members: [Member] {
            if case .document(let storage, let index) = representation { return storage.objectMembers(index) }
            var members: [Member] = []
            members.reserveCapacity(values.count)
            let (keySet, values) = parts
            for (key, value) in zip(keySet.keys, values) { members.append(Member(key: key, value: value)) }
            return members
        }

        /// Objects with more members than this get an index for their lookups.
        static let indexThreshold = 16

        /// Creates an empty object.
        public init() {
            representation = .members(.empty, [])
        }

        /// Creates an object from members in order; when a key repeats, the last value wins, in the
        /// first key's place.
        public init(_ members: some Sequence<Member>) {
            var keys: [String] = []
            var values: [JSON] = []
            var positions: [JSONMemberName: Int] = [:]
            for member in members {
                if let position = positions[JSONMemberName(member.key)] {
                    values[position] = member.value
                } else {
                    positions[JSONMemberName(member.key)] = keys.count
                    keys.append(member.key)
                    values.append(member.value)
                }
            }
            self.init(keys: keys.isEmpty ? .empty : JSONObjectKeys(unique: keys, positions: positions), values: values)
        }

        /// Creates an object from members already known to have unique keys.
        init(uniqueMembers: [Member]) {
            self.init(
                keys: uniqueMembers.isEmpty ? .empty : JSONObjectKeys(unique: uniqueMembers.map(\.key), positions: nil),
                values: uniqueMembers.map(\.value))
        }

        /// Creates an object from its keys and as many values, in the same order (the parser's
        /// case).
        init(keys: JSONObjectKeys, values: [JSON]) {
            precondition(keys.count == values.count, "An object has as many keys as values")
            representation = .members(keys, values)
        }

        private init(parts: (keys: JSONObjectKeys, values: [JSON])) {
            representation = .members(parts.keys, parts.values)
        }

        /// An object that reads through the object entry `index` of a parsed document until it is
        /// changed.
        init(document storage: JSONDocument.Storage, index: Int) {
            representation = .document(storage, index)
        }

        /// Creates an object from a dictionary, its keys sorted so that the order is stable.
        public init(_ dictionary: [String: JSON]) {
            let keys = dictionary.keys.sorted()
            self.init(
                keys: keys.isEmpty ? .empty : JSONObjectKeys(unique: keys, positions: nil), values: keys.map { dictionary[$0]! })
        }

        /// The value of the member `key`, or `nil`. Setting a value adds the member at the end or
        /// replaces it in place; setting `nil` removes it.
        public subscript(key: String) -> JSON? {
            get {
                switch representation {
                case .members(let keySet, let values): keySet.position(of: key).map { values[$0] }
                case .document(let storage, let index): storage.member(key, of: index).map { storage.tree(at: $0) }
                }
            }
            set {
                var (keySet, values) = takeParts()
                defer { representation = .members(keySet, values) }
                switch (keySet.position(of: key), newValue) {
                case let (position?, value?):
                    values[position] = value
                case let (nil, value?):
                    keySet = keySet.appending(key)
                    values.append(value)
                case let (position?, nil):
                    keySet = keySet.removing(at: position)
                    values.remove(at: position)
                case (nil, nil):
                    break
                }
            }
        }

        /// The keys, in order.
        public var keys: [String] { keySet.keys }

        /// The number of members.
        public var count: Int {
            switch representation {
            case .members(_, let values): values.count
            case .document(let storage, let index): storage.objectCount(index)
            }
        }

        /// Whether the object has no members.
        public var isEmpty: Bool { count == 0 }

        /// The members as a dictionary (order is lost). Keys that differ only in their Unicode
        /// normalization are one key to a Swift `Dictionary`: of those, the last member wins.
        public var dictionary: [String: JSON] {
            let (keySet, values) = parts
            return Dictionary(zip(keySet.keys, values), uniquingKeysWith: { _, last in last })
        }

        /// Where the member `key` is.
        func position(of key: String) -> Int? {
            keySet.position(of: key)
        }
    }
}

extension JSON.Object: Sequence {
    /// Iterates over the members in order (made once, as ``members`` makes them).
    public func makeIterator() -> IndexingIterator<[Member]> {
        members.makeIterator()
    }
}

extension JSON.Object: Hashable {
    /// Whether two objects have the same keys with equal values, in any order.
    public static func == (lhs: JSON.Object, rhs: JSON.Object) -> Bool {
        if case .document(let left, let leftIndex) = lhs.representation, case .document(let right, let rightIndex) = rhs.representation,
           left === right, leftIndex == rightIndex {
            return true
        }
        guard lhs.count == rhs.count else { return false }
        let lhs = lhs.materialized, rhs = rhs.materialized
        if lhs.keySet === rhs.keySet { return lhs.values == rhs.values }
        for (key, value) in zip(lhs.keySet.keys, lhs.values) {
            guard let position = rhs.keySet.position(of: key), rhs.values[position] == value else { return false }
        }
        return true
    }

    /// Hashes the members without regard to their order.
    public func hash(into hasher: inout Hasher) {
        var combined = 0
        let (keySet, values) = parts
        for (key, value) in zip(keySet.keys, values) {
            // As `Member.hash(into:)` hashes a member.
            var memberHasher = Hasher()
            memberHasher.combine(JSONMemberName(key))
            memberHasher.combine(value)
            combined ^= memberHasher.finalize()
        }
        hasher.combine(values.count)
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
