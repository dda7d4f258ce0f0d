extension JSONValueDecoder {
    /// The members of an object, looked up by coding key (after the key strategy).
    ///
    /// A class: `KeyedDecodingContainer` copies its container for every call, and copying one
    /// reference is cheaper than copying the object, its path and the decoder one by one.
    final class KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: JSONValueDecoder
        let object: JSON.Object
        let node: CodingPathNode
        /// Converted key → position, when the key strategy is not `.useDefaultKeys`; the first of
        /// two members whose keys convert alike wins, as in `JSONDecoder`.
        private let positions: [JSONMemberName: Int]?
        /// Where the next key is likely to be.
        @exclusivity(unchecked) private var cursor = 0

        init(decoder: JSONValueDecoder, object: JSON.Object, node: CodingPathNode) {
            self.decoder = decoder
            // An object that reads through a document is read once, not on every lookup.
            self.object = object.materialized
            self.node = node
            if decoder.strategies.usesDefaultKeys {
                positions = nil
            } else {
                let indexed = self.object.keys.enumerated().map { (key: $0.element, value: $0.offset) }
                positions = decoder.convertedKeys(of: indexed, at: node)
            }
        }

        var codingPath: [any CodingKey] { node.path }

        var allKeys: [Key] {
            if let positions {
                return positions.sorted { $0.value < $1.value }.compactMap { Key(stringValue: $0.key.string) }
            }
            return object.keys.compactMap { Key(stringValue: $0) }
        }

        func contains(_ key: Key) -> Bool {
            value(for: key) != nil
        }

        private func value(for key: Key) -> JSON? {
            value(forKey: key.stringValue)
        }

        private func value(forKey key: String) -> JSON? {
            if let positions {
                return positions[JSONMemberName(key)].map { object.values[$0] }
            }
            // Types decode their keys in the order they declare them, which is usually the
            // order of the document: try the member after the last one found first.
            let keys = object.keys
            if cursor < keys.count, JSONMemberName.same(keys[cursor], key) {
                defer { cursor += 1 }
                return object.values[cursor]
            }
            guard let position = object.position(of: key) else { return nil }
            cursor = position + 1
            return object.values[position]
        }

        private func require(_ key: Key) throws -> JSON {
            guard let value = value(for: key) else {
                throw DecodingError.keyNotFound(key, DecodingError.Context(
                    codingPath: codingPath, debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
            }
            return value
        }

        /// The value for `key`, or `nil` when it is missing or `null`.
        private func present(_ key: Key) -> JSON? {
            guard let value = value(for: key), value != .null else { return nil }
            return value
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            try require(key) == .null
        }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
            try decoder.unwrapBool(require(key), at: node, key)
        }

        func decode(_ type: String.Type, forKey key: Key) throws -> String {
            try decoder.unwrapString(require(key), at: node, key)
        }

        func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
            try decoder.unwrapFloatingPoint(require(key), as: type, at: node, key)
        }

        func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
            try decoder.unwrapFloatingPoint(require(key), as: type, at: node, key)
        }

        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, key) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, key) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }

        private func integer<T: FixedWidthInteger>(_ type: T.Type, _ key: Key) throws -> T {
            try decoder.unwrapInteger(require(key), as: type, at: node, key)
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try decoder.unwrap(require(key), as: type, at: node, key)
        }

        func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
            try present(key).map { try decoder.unwrapBool($0, at: node, key) }
        }

        func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
            try present(key).map { try decoder.unwrapString($0, at: node, key) }
        }

        func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
            try present(key).map { try decoder.unwrapFloatingPoint($0, as: type, at: node, key) }
        }

        func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
            try present(key).map { try decoder.unwrapFloatingPoint($0, as: type, at: node, key) }
        }

        func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try integerIfPresent(type, key) }
        func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try integerIfPresent(type, key) }
        func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try integerIfPresent(type, key) }
        func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try integerIfPresent(type, key) }
        func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try integerIfPresent(type, key) }
        func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try integerIfPresent(type, key) }
        func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try integerIfPresent(type, key) }
        func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try integerIfPresent(type, key) }
        func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try integerIfPresent(type, key) }
        func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try integerIfPresent(type, key) }

        private func integerIfPresent<T: FixedWidthInteger>(_ type: T.Type, _ key: Key) throws -> T? {
            try present(key).map { try decoder.unwrapInteger($0, as: type, at: node, key) }
        }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            try present(key).map { try decoder.unwrap($0, as: type, at: node, key) }
        }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type, forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> {
            let value = try require(key)
            return try decoder.with(value, at: node.appending(key)) { try decoder.container(keyedBy: type) }
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            let value = try require(key)
            return try decoder.with(value, at: node.appending(key)) { try decoder.unkeyedContainer() }
        }

        func superDecoder() throws -> any Decoder {
            subDecoder(AnyCodingKey("super"))
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            subDecoder(key)
        }

        /// A decoder of its own for the value at `key` (`null` when there is none), as
        /// `JSONDecoder` gives.
        private func subDecoder(_ key: some CodingKey) -> any Decoder {
            let value = self.value(forKey: key.stringValue) ?? .null
            return decoder.subDecoder(value, at: node.appending(key))
        }
    }
}
