extension JSONTapeDecoder {
    /// The elements of an array on the tape, in order.
    struct UnkeyedContainer: UnkeyedDecodingContainer {
        let decoder: JSONTapeDecoder
        /// The array's tape entry.
        let array: Int
        let count: Int?
        private(set) var currentIndex = 0
        /// The entry of the current element.
        private var position: Int

        init(decoder: JSONTapeDecoder, array: Int) {
            self.decoder = decoder
            self.array = array
            count = Int(decoder.tape[array].length)
            position = array + 1
        }

        var codingPath: [any CodingKey] { decoder.path(array, adding: nil) }
        var isAtEnd: Bool { currentIndex >= count! }

        private var key: ArrayIndexKey { ArrayIndexKey(currentIndex) }

        /// The entry of the next element, or a `valueNotFound` error when there is none.
        private func next(_ type: Any.Type) throws -> Int {
            decoder.scope.check()
            guard currentIndex < count! else {
                throw DecodingError.valueNotFound(type, DecodingError.Context(
                    codingPath: decoder.path(array, adding: key), debugDescription: "Unkeyed container is at end."))
            }
            return position
        }

        private mutating func advance() {
            position = decoder.end(of: position)
            currentIndex += 1
        }

        /// The next element as a leaf, unless it is `null` or there is none; moves past a `null`.
        private mutating func nextLeafIfPresent() -> JSON? {
            decoder.scope.check()
            guard currentIndex < count! else { return nil }
            if decoder.tape[position].kind == .null {
                advance()
                return nil
            }
            return decoder.leaf(position)
        }

        mutating func decodeNil() throws -> Bool {
            guard decoder.tape[try next(Never.self)].kind == .null else { return false }
            advance()
            return true
        }

        mutating func decode(_ type: Bool.Type) throws -> Bool {
            let result = try decoder.unwrapBool(decoder.leaf(next(type)), at: array, key)
            advance()
            return result
        }

        mutating func decode(_ type: String.Type) throws -> String {
            let result = try decoder.unwrapString(decoder.leaf(next(type)), at: array, key)
            advance()
            return result
        }

        mutating func decode(_ type: Double.Type) throws -> Double {
            let result = try decoder.unwrapDouble(next(type), at: array, key)
            advance()
            return result
        }
        mutating func decode(_ type: Float.Type) throws -> Float { try floatingPoint(type) }

        private mutating func floatingPoint<T: BinaryFloatingPoint & LosslessStringConvertible>(_ type: T.Type) throws -> T {
            let result = try decoder.unwrapFloatingPoint(decoder.leaf(next(type)), as: type, at: array, key)
            advance()
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
            let result = try decoder.unwrapInteger(decoder.leaf(next(type)), as: type, at: array, key)
            advance()
            return result
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let result = try decoder.unwrap(next(type), as: type, at: array, key)
            advance()
            return result
        }

        mutating func decodeIfPresent(_ type: Bool.Type) throws -> Bool? {
            guard let value = nextLeafIfPresent() else { return nil }
            let result = try decoder.unwrapBool(value, at: array, key)
            advance()
            return result
        }

        mutating func decodeIfPresent(_ type: String.Type) throws -> String? {
            guard let value = nextLeafIfPresent() else { return nil }
            let result = try decoder.unwrapString(value, at: array, key)
            advance()
            return result
        }

        mutating func decodeIfPresent(_ type: Double.Type) throws -> Double? { try floatingPointIfPresent(type) }
        mutating func decodeIfPresent(_ type: Float.Type) throws -> Float? { try floatingPointIfPresent(type) }

        private mutating func floatingPointIfPresent<T: BinaryFloatingPoint & LosslessStringConvertible>(_ type: T.Type) throws -> T? {
            guard let value = nextLeafIfPresent() else { return nil }
            let result = try decoder.unwrapFloatingPoint(value, as: type, at: array, key)
            advance()
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
            guard let value = nextLeafIfPresent() else { return nil }
            let result = try decoder.unwrapInteger(value, as: type, at: array, key)
            advance()
            return result
        }

        mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
            decoder.scope.check()
            guard currentIndex < count! else { return nil }
            if decoder.tape[position].kind == .null {
                advance()
                return nil
            }
            let result = try decoder.unwrap(position, as: type, at: array, key)
            advance()
            return result
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            let entry = try next(KeyedDecodingContainer<NestedKey>.self)
            let container = try decoder.with(entry, at: entry) {
                try decoder.container(keyedBy: type)
            }
            advance()
            return container
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let entry = try next((any UnkeyedDecodingContainer).self)
            let container = try decoder.with(entry, at: entry) {
                try decoder.unkeyedContainer()
            }
            advance()
            return container
        }

        mutating func superDecoder() throws -> any Decoder {
            let entry = try next((any Decoder).self)
            let sub = decoder.subDecoder(entry, at: entry)
            advance()
            return sub
        }
    }
}
