/// Where an unkeyed container is in an array, for one ``JSONDecodingEngine``: the array's
/// elements in order, one at a time.
protocol JSONArrayCursor {
    associatedtype Ref
    /// How many elements the array has.
    var count: Int { get }
    /// The element the cursor is at; only read while elements remain.
    var element: Ref { get }
    /// Moves to the next element.
    mutating func advance()
}

/// The elements of an array, in order: the unkeyed container of both decoders, written once.
/// `JSONTapeDecoder` walks the tape (``JSONTapeDecoder/ArrayCursor``), `JSONValueDecoder` the
/// array's ``JSON`` elements (``JSONValueDecoder/ArrayCursor``); conversions and errors are the
/// engine's.
///
/// A protocol whose extension does the work, not a struct generic over the engine: each decoder's
/// container is then a plain type whose witnesses are compiled for that engine. A generic
/// struct's witnesses stay generic (its conformance is one for every engine), and read through
/// it, a row of numbers took 2.2 times the instructions. What is left of the cost of sharing:
/// 1.4 % (tape) and 1.5 % (value) more instructions than the two hand-written containers took
/// reading rows of numbers element by element, as the decoder is read through the protocol's
/// getter (a retain and release per element); the decode benchmarks do not come here.
///
/// Types whose arrays HotPotato decodes itself (``DecodableArray``) do not come here; this is
/// the container a type's own `init(from:)` asks for.
protocol JSONUnkeyedContainer: UnkeyedDecodingContainer {
    associatedtype Engine: JSONDecodingEngine
    var decoder: Engine { get }
    /// Where the array is.
    var site: Engine.Location { get }
    /// The current element.
    var cursor: Engine.ArrayCursor { get set }
    var currentIndex: Int { get set }
}

extension JSONUnkeyedContainer {
    var codingPath: [any CodingKey] { decoder.path(site, adding: nil) }
    var isAtEnd: Bool { currentIndex >= cursor.count }

    var count: Int? { cursor.count }

    private var key: ArrayIndexKey { ArrayIndexKey(currentIndex) }

    /// The next element, or a `valueNotFound` error when there is none.
    @inline(__always)
    private func next(_ type: Any.Type) throws -> Engine.Ref {
        decoder.checkScope()
        guard currentIndex < cursor.count else {
            throw DecodingError.valueNotFound(type, DecodingError.Context(
                codingPath: decoder.path(site, adding: key), debugDescription: "Unkeyed container is at end."))
        }
        return cursor.element
    }

    @inline(__always)
    private mutating func advance() {
        cursor.advance()
        currentIndex += 1
    }

    /// The next element unless it is `null` or there is none; moves past a `null`.
    @inline(__always)
    private mutating func nextIfPresent() -> Engine.Ref? {
        decoder.checkScope()
        guard currentIndex < cursor.count else { return nil }
        let element = cursor.element
        if decoder.isNull(element) {
            advance()
            return nil
        }
        return element
    }

    mutating func decodeNil() throws -> Bool {
        guard decoder.isNull(try next(Never.self)) else { return false }
        advance()
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        let result = try decoder.unwrapBool(decoder.leaf(next(type)), at: site, key)
        advance()
        return result
    }

    mutating func decode(_ type: String.Type) throws -> String {
        let result = try decoder.unwrapString(decoder.leaf(next(type)), at: site, key)
        advance()
        return result
    }

    mutating func decode(_ type: Double.Type) throws -> Double {
        let result = try decoder.unwrapDouble(next(type), at: site, key)
        advance()
        return result
    }

    mutating func decode(_ type: Float.Type) throws -> Float { try floatingPoint(type) }

    private mutating func floatingPoint<T: BinaryFloatingPoint & LosslessStringConvertible>(_ type: T.Type) throws -> T {
        let result = try decoder.unwrapFloatingPoint(decoder.leaf(next(type)), as: type, at: site, key)
        advance()
        return result
    }

    mutating func decode(_ type: Int.Type) throws -> Int {
        let result = try decoder.unwrapInt(next(type), at: site, key)
        advance()
        return result
    }

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
        let result = try decoder.unwrapInteger(decoder.leaf(next(type)), as: type, at: site, key)
        advance()
        return result
    }

    @inline(__always)
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let result = try decoder.unwrap(next(type), as: type, at: site, key)
        advance()
        return result
    }

    mutating func decodeIfPresent(_ type: Bool.Type) throws -> Bool? {
        guard let element = nextIfPresent() else { return nil }
        let result = try decoder.unwrapBool(decoder.leaf(element), at: site, key)
        advance()
        return result
    }

    mutating func decodeIfPresent(_ type: String.Type) throws -> String? {
        guard let element = nextIfPresent() else { return nil }
        let result = try decoder.unwrapString(decoder.leaf(element), at: site, key)
        advance()
        return result
    }

    mutating func decodeIfPresent(_ type: Double.Type) throws -> Double? { try floatingPointIfPresent(type) }
    mutating func decodeIfPresent(_ type: Float.Type) throws -> Float? { try floatingPointIfPresent(type) }

    private mutating func floatingPointIfPresent<T: BinaryFloatingPoint & LosslessStringConvertible>(_ type: T.Type) throws -> T? {
        guard let element = nextIfPresent() else { return nil }
        let result = try decoder.unwrapFloatingPoint(decoder.leaf(element), as: type, at: site, key)
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
        guard let element = nextIfPresent() else { return nil }
        let result = try decoder.unwrapInteger(decoder.leaf(element), as: type, at: site, key)
        advance()
        return result
    }

    @inline(__always)
    mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
        guard let element = nextIfPresent() else { return nil }
        let result = try decoder.unwrap(element, as: type, at: site, key)
        advance()
        return result
    }

    // MARK: - Nested containers and decoders

    @inline(__always)
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let element = try next(KeyedDecodingContainer<NestedKey>.self)
        let container = try decoder.with(element, at: decoder.location(of: element, at: site, key)) { try decoder.container(keyedBy: type) }
        advance()
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let element = try next((any UnkeyedDecodingContainer).self)
        let container = try decoder.with(element, at: decoder.location(of: element, at: site, key)) { try decoder.unkeyedContainer() }
        advance()
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let element = try next((any Decoder).self)
        let sub = decoder.subDecoder(element, at: decoder.location(of: element, at: site, key))
        advance()
        return sub
    }
}

extension JSONTapeDecoder {
    /// The elements of an array on the tape, in order.
    struct UnkeyedContainer: JSONUnkeyedContainer {
        let decoder: JSONTapeDecoder
        /// The array's tape entry.
        let site: Int
        var cursor: ArrayCursor
        var currentIndex = 0
    }

    /// An array's elements on the tape: each element's entry, the next one after all of its.
    struct ArrayCursor: JSONArrayCursor {
        let tape: UnsafeBufferPointer<JSONTapeEntry>
        /// The current element's entry.
        private(set) var element: Int
        let count: Int

        init(tape: UnsafeBufferPointer<JSONTapeEntry>, position: Int, count: Int) {
            self.tape = tape
            element = position
            self.count = count
        }

        mutating func advance() {
            element = JSONTapeLookup.end(of: element, in: tape)
        }
    }
}

extension JSONValueDecoder {
    /// The elements of an array, in order.
    struct UnkeyedContainer: JSONUnkeyedContainer {
        let decoder: JSONValueDecoder
        let site: CodingPathNode
        var cursor: ArrayCursor
        var currentIndex = 0
    }

    /// An array's elements, by index.
    struct ArrayCursor: JSONArrayCursor {
        let elements: [JSON]
        private var index = 0

        init(elements: [JSON]) {
            self.elements = elements
        }

        var count: Int { elements.count }
        var element: JSON { elements[index] }

        mutating func advance() {
            index += 1
        }
    }
}
