extension JSONValueDecoder {
    /// The elements of an array, in order.
    struct UnkeyedContainer: UnkeyedDecodingContainer {
        let decoder: JSONValueDecoder
        let elements: [JSON]
        let node: CodingPathNode
        private(set) var currentIndex = 0

        init(decoder: JSONValueDecoder, elements: [JSON], node: CodingPathNode) {
            self.decoder = decoder
            self.elements = elements
            self.node = node
        }

        var codingPath: [any CodingKey] { node.path }
        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        private var key: ArrayIndexKey { ArrayIndexKey(currentIndex) }

        /// The next element, or a `valueNotFound` error when there is none.
        private func next(_ type: Any.Type) throws -> JSON {
            guard currentIndex < elements.count else {
                throw DecodingError.valueNotFound(type, DecodingError.Context(
                    codingPath: node.path(adding: key), debugDescription: "Unkeyed container is at end."))
            }
            return elements[currentIndex]
        }

        /// The next element unless it is `null` or there is none; moves past a `null`.
        private mutating func nextIfPresent() -> JSON? {
            guard currentIndex < elements.count else { return nil }
            let value = elements[currentIndex]
            if case .null = value {
                currentIndex += 1
                return nil
            }
            return value
        }

        mutating func decodeNil() throws -> Bool {
            guard case .null = try next(Never.self) else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode(_ type: Bool.Type) throws -> Bool {
            let result = try decoder.unwrapBool(next(type), at: node, key)
            currentIndex += 1
            return result
        }

        mutating func decode(_ type: String.Type) throws -> String {
            let result = try decoder.unwrapString(next(type), at: node, key)
            currentIndex += 1
            return result
        }

        mutating func decode(_ type: Double.Type) throws -> Double { try floatingPoint(type) }
        mutating func decode(_ type: Float.Type) throws -> Float { try floatingPoint(type) }

        private mutating func floatingPoint<T: BinaryFloatingPoint & LosslessStringConvertible>(_ type: T.Type) throws -> T {
            let result = try decoder.unwrapFloatingPoint(next(type), as: type, at: node, key)
            currentIndex += 1
            return result
        }

        mutating func decode(_ type: Int.Type) throws -> Int { try integer(type) }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

        private mutating func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
            let result = try decoder.unwrapInteger(next(type), as: type, at: node, key)
            currentIndex += 1
            return result
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let result = try decoder.unwrap(next(type), as: type, at: node, key)
            currentIndex += 1
            return result
        }

        mutating func decodeIfPresent(_ type: Bool.Type) throws -> Bool? {
            guard let value = nextIfPresent() else { return nil }
            let result = try decoder.unwrapBool(value, at: node, key)
            currentIndex += 1
            return result
        }

        mutating func decodeIfPresent(_ type: String.Type) throws -> String? {
            guard let value = nextIfPresent() else { return nil }
            let result = try decoder.unwrapString(value, at: node, key)
            currentIndex += 1
            return result
        }

        mutating func decodeIfPresent(_ type: Double.Type) throws -> Double? { try floatingPointIfPresent(type) }
        mutating func decodeIfPresent(_ type: Float.Type) throws -> Float? { try floatingPointIfPresent(type) }

        private mutating func floatingPointIfPresent<T: BinaryFloatingPoint & LosslessStringConvertible>(_ type: T.Type) throws -> T? {
            guard let value = nextIfPresent() else { return nil }
            let result = try decoder.unwrapFloatingPoint(value, as: type, at: node, key)
            currentIndex += 1
            return result
        }

        mutating func decodeIfPresent(_ type: Int.Type) throws -> Int? { try integerIfPresent(type) }
        mutating func decodeIfPresent(_ type: Int8.Type) throws -> Int8? { try integerIfPresent(type) }
        mutating func decodeIfPresent(_ type: Int16.Type) throws -> Int16? { try integerIfPresent(type) }
        mutating func decodeIfPresent(_ type: Int32.Type) throws -> Int32? { try integerIfPresent(type) }
        mutating func decodeIfPresent(_ type: Int64.Type) throws -> Int64? { try integerIfPresent(type) }
        mutating func decodeIfPresent(_ type: UInt.Type) throws -> UInt? { try integerIfPresent(type) }
        mutating func decodeIfPresent(_ type: UInt8.Type) throws -> UInt8? { try integerIfPresent(type) }
        mutating func decodeIfPresent(_ type: UInt16.Type) throws -> UInt16? { try integerIfPresent(type) }
        mutating func decodeIfPresent(_ type: UInt32.Type) throws -> UInt32? { try integerIfPresent(type) }
        mutating func decodeIfPresent(_ type: UInt64.Type) throws -> UInt64? { try integerIfPresent(type) }

        private mutating func integerIfPresent<T: FixedWidthInteger>(_ type: T.Type) throws -> T? {
            guard let value = nextIfPresent() else { return nil }
            let result = try decoder.unwrapInteger(value, as: type, at: node, key)
            currentIndex += 1
            return result
        }

        mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
            guard let value = nextIfPresent() else { return nil }
            let result = try decoder.unwrap(value, as: type, at: node, key)
            currentIndex += 1
            return result
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            let value = try next(KeyedDecodingContainer<NestedKey>.self)
            let container = try decoder.with(value, at: node.appending(index: currentIndex)) {
                try decoder.container(keyedBy: type)
            }
            currentIndex += 1
            return container
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let value = try next((any UnkeyedDecodingContainer).self)
            let container = try decoder.with(value, at: node.appending(index: currentIndex)) {
                try decoder.unkeyedContainer()
            }
            currentIndex += 1
            return container
        }

        mutating func superDecoder() throws -> any Decoder {
            let value = try next((any Decoder).self)
            let decoder = JSONValueDecoder(value: value, node: node.appending(index: currentIndex), strategies: self.decoder.strategies)
            currentIndex += 1
            return decoder
        }
    }
}
