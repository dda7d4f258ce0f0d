extension JSONTapeDecoder {
    /// The members of an object on the tape, looked up by coding key (after the key strategy).
    ///
    /// A class, as in `JSONValueDecoder`: `KeyedDecodingContainer` copies its container for every
    /// call.
    final class KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: JSONTapeDecoder
        let object: Int
        let node: CodingPathNode
        /// The entry after the object's last.
        private let last: Int
        /// Key → value entry, when keys are converted or may repeat; otherwise keys are compared
        /// with the document's bytes where they are.
        private let lookup: [JSONMemberName: Int]?
        /// The key entry most likely asked for next: types decode their keys in the order they
        /// declare them, which is usually the document's.
        @exclusivity(unchecked) private var cursor: Int

        init(decoder: JSONTapeDecoder, object: Int, node: CodingPathNode) throws {
            self.decoder = decoder
            self.object = object
            self.node = node
            last = decoder.end(of: object)
            cursor = object + 1
            let mayRepeat = decoder.tape[object].flags & JSONTapeEntry.mayRepeatKeys != 0
            if decoder.strategies.usesDefaultKeys && !mayRepeat {
                lookup = nil
            } else {
                let members = try decoder.members(of: object)!
                if decoder.strategies.usesDefaultKeys {
                    lookup = Dictionary(members.map { (JSONMemberName($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
                } else {
                    var cache = decoder.convertedKeys
                    lookup = JSONKeyConversion.convert(members, strategy: decoder.strategies.keys, at: node, cache: &cache)
                    decoder.convertedKeys = cache
                }
            }
        }

        var codingPath: [any CodingKey] { node.path }

        var allKeys: [Key] {
            decoder.scope.check()
            if let lookup {
                return lookup.sorted { $0.value < $1.value }.compactMap { Key(stringValue: $0.key.string) }
            }
            var keys: [Key] = []
            var position = object + 1
            while position < last {
                if let key = Key(stringValue: decoder.string(at: position)) { keys.append(key) }
                position = decoder.end(of: position + 1)
            }
            return keys
        }

        func contains(_ key: Key) -> Bool {
            valueEntry(forKey: key.stringValue) != nil
        }

        /// The entry of the value for `key`, or `nil`.
        private func valueEntry(forKey key: String) -> Int? {
            decoder.scope.check()
            if let lookup { return lookup[JSONMemberName(key)] }
            if cursor < last, decoder.key(at: cursor, is: key) {
                let value = cursor + 1
                cursor = decoder.end(of: value)
                return value
            }
            var position = object + 1
            while position < last {
                if decoder.key(at: position, is: key) {
                    cursor = decoder.end(of: position + 1)
                    return position + 1
                }
                position = decoder.end(of: position + 1)
            }
            return nil
        }

        private func require(_ key: Key) throws -> Int {
            guard let entry = valueEntry(forKey: key.stringValue) else {
                throw DecodingError.keyNotFound(key, DecodingError.Context(
                    codingPath: codingPath, debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
            }
            return entry
        }

        /// The value for `key` as a leaf, or `nil` when it is missing or `null`.
        private func presentLeaf(_ key: Key) -> JSON? {
            guard let entry = valueEntry(forKey: key.stringValue), decoder.tape[entry].kind != .null else { return nil }
            return decoder.leaf(entry)
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            decoder.tape[try require(key)].kind == .null
        }

        // Strings, numbers and booleans of the expected kind are read straight from the tape;
        // anything else goes through the shared path, for its conversions and errors.

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
            let entry = try require(key)
            switch decoder.tape[entry].kind {
            case .true: return true
            case .false: return false
            default: return try decoder.unwrapBool(decoder.leaf(entry), at: node, key)
            }
        }

        func decode(_ type: String.Type, forKey key: Key) throws -> String {
            let entry = try require(key)
            if decoder.tape[entry].kind == .string { return decoder.string(at: entry) }
            return try decoder.unwrapString(decoder.leaf(entry), at: node, key)
        }

        func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
            try decoder.unwrapDouble(require(key), at: node, key)
        }

        func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
            try decoder.unwrapFloatingPoint(decoder.leaf(require(key)), as: type, at: node, key)
        }

        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder.unwrapInt(require(key), at: node, key) }
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
            let entry = try require(key)
            if decoder.tape[entry].kind == .number, case .integer(let value) = decoder.number(at: entry).storage,
               let exact = T(exactly: value) {
                return exact
            }
            return try decoder.unwrapInteger(decoder.leaf(entry), as: type, at: node, key)
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try decoder.unwrap(require(key), as: type, at: node, key)
        }

        func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
            try presentLeaf(key).map { try decoder.unwrapBool($0, at: node, key) }
        }

        func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
            try presentLeaf(key).map { try decoder.unwrapString($0, at: node, key) }
        }

        func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
            try presentLeaf(key).map { try decoder.unwrapFloatingPoint($0, as: type, at: node, key) }
        }

        func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
            try presentLeaf(key).map { try decoder.unwrapFloatingPoint($0, as: type, at: node, key) }
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
            try presentLeaf(key).map { try decoder.unwrapInteger($0, as: type, at: node, key) }
        }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            guard let entry = valueEntry(forKey: key.stringValue), decoder.tape[entry].kind != .null else { return nil }
            return try decoder.unwrap(entry, as: type, at: node, key)
        }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type, forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> {
            let entry = try require(key)
            return try decoder.with(entry, at: node.appending(key)) { try decoder.container(keyedBy: type) }
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            let entry = try require(key)
            return try decoder.with(entry, at: node.appending(key)) { try decoder.unkeyedContainer() }
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
            if let entry = valueEntry(forKey: key.stringValue) {
                return decoder.subDecoder(entry, at: node.appending(key))
            }
            return JSONValueDecoder(value: .null, node: node.appending(key), strategies: decoder.strategies)
        }
    }
}
