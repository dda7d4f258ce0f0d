/// `[Element]`, decoded element by element straight from a JSON array, rather than through
/// `Array.init(from:)` and an unkeyed container held as an existential.
///
/// One requirement per decoder rather than one generic over both: the common element types are
/// then decoded by fully specialised code.
protocol DecodableArray {
    static func decodeElements(_ elements: [JSON], with decoder: JSONValueDecoder, at node: CodingPathNode) throws -> Self
    static func decodeElements(ofArrayAt array: Int, with decoder: JSONTapeDecoder) throws -> Self
}

/// Which types are arrays HotPotato decodes itself (``DecodableArray``), remembered by type, since
/// asking the runtime about a conformance each time is slow. Each decoder keeps one.
///
/// The last four types asked about are also kept in a row of slots, compared before the table is
/// hashed: a type of records asks about the same few types (itself, its members' types) for
/// every record, and comparing identifiers is cheaper than hashing one (about 1 % of the
/// instructions of decoding the mixed benchmark document, which asks about three).
struct DecodableArrayTypes {
    private var known: [ObjectIdentifier: (any DecodableArray.Type)?] = [:]
    private var recentTypes: (ObjectIdentifier?, ObjectIdentifier?, ObjectIdentifier?, ObjectIdentifier?) = (nil, nil, nil, nil)
    private var recentArrays: ((any DecodableArray.Type)?, (any DecodableArray.Type)?, (any DecodableArray.Type)?, (any DecodableArray.Type)?)
        = (nil, nil, nil, nil)
    private var nextSlot = 0

    /// `type` as a ``DecodableArray``, or `nil`.
    @inline(__always)
    mutating func lookUp<T>(_ type: T.Type) -> (any DecodableArray.Type)? {
        let identifier = ObjectIdentifier(type)
        if recentTypes.0 == identifier { return recentArrays.0 }
        if recentTypes.1 == identifier { return recentArrays.1 }
        if recentTypes.2 == identifier { return recentArrays.2 }
        if recentTypes.3 == identifier { return recentArrays.3 }
        return remember(type, identifier)
    }

    private mutating func remember<T>(_ type: T.Type, _ identifier: ObjectIdentifier) -> (any DecodableArray.Type)? {
        let array: (any DecodableArray.Type)?
        if let known = known[identifier] {
            array = known
        } else {
            array = type as? any DecodableArray.Type
            known[identifier] = .some(array)
        }
        switch nextSlot {
        case 0: (recentTypes.0, recentArrays.0) = (identifier, array)
        case 1: (recentTypes.1, recentArrays.1) = (identifier, array)
        case 2: (recentTypes.2, recentArrays.2) = (identifier, array)
        default: (recentTypes.3, recentArrays.3) = (identifier, array)
        }
        nextSlot = (nextSlot + 1) & 3
        return array
    }
}

extension DecodableArray {
    /// The array decoded from `elements`, as `T`, which is `Self`.
    static func decodeElements<T>(_ elements: [JSON], with decoder: JSONValueDecoder, at node: CodingPathNode, returning: T.Type) throws -> T {
        unsafeBitCast(try decodeElements(elements, with: decoder, at: node), to: T.self)
    }

    /// The array decoded from the tape, as `T`, which is `Self`.
    static func decodeElements<T>(ofArrayAt array: Int, with decoder: JSONTapeDecoder, returning: T.Type) throws -> T {
        unsafeBitCast(try decodeElements(ofArrayAt: array, with: decoder), to: T.self)
    }
}

extension Array: DecodableArray where Element: Decodable {
    static func decodeElements(_ elements: [JSON], with decoder: JSONValueDecoder, at node: CodingPathNode) throws -> Self {
        if Element.self == String.self {
            var strings: [String] = []
            strings.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                if case .string(let string) = element {
                    strings.append(string)
                } else {
                    strings.append(try decoder.unwrapString(element, at: node, ArrayIndexKey(index)))
                }
            }
            return unsafeBitCast(strings, to: Self.self)
        }
        if Element.self == Double.self {
            return unsafeBitCast(try map(elements.count, elements.makeIterator()) { try decoder.unwrapDouble($0, at: node, $1) }, to: Self.self)
        }
        if Element.self == Int.self {
            return unsafeBitCast(try map(elements.count, elements.makeIterator()) { try decoder.unwrapInt($0, at: node, $1) }, to: Self.self)
        }
        var result: [Element] = []
        result.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            result.append(try decoder.unwrap(element, as: Element.self, at: node, ArrayIndexKey(index)))
        }
        return result
    }

    static func decodeElements(ofArrayAt array: Int, with decoder: JSONTapeDecoder) throws -> Self {
        // The common element types without a generic call per element.
        if Element.self == String.self {
            return unsafeBitCast(try decoder.strings(ofArrayAt: array), to: Self.self)
        }
        let entries = TapeElements(decoder: decoder, array: array)
        if Element.self == Double.self {
            return unsafeBitCast(try map(entries.count, entries.makeIterator()) { try decoder.unwrapDouble($0, at: array, $1) }, to: Self.self)
        }
        if Element.self == Int.self {
            return unsafeBitCast(try map(entries.count, entries.makeIterator()) { try decoder.unwrapInt($0, at: array, $1) }, to: Self.self)
        }
        var result: [Element] = []
        result.reserveCapacity(Int(decoder.tape[array].length))
        var position = array + 1
        if decoder.decodesThroughInit(Element.self) {
            // What `unwrap` would do for each element, with its type tests made once.
            for _ in 0..<Int(decoder.tape[array].length) {
                result.append(try decoder.with(position, at: position) { try Element(from: decoder) })
                position = decoder.end(of: position)
            }
            return result
        }
        for index in 0..<Int(decoder.tape[array].length) {
            result.append(try decoder.unwrap(position, as: Element.self, at: array, ArrayIndexKey(index)))
            position = decoder.end(of: position)
        }
        return result
    }
}

extension Array where Element: Decodable {
    /// Each element converted by `convert`, with its index as a coding key.
    @inline(__always)
    fileprivate static func map<Elements: IteratorProtocol, T>(
        _ count: Int, _ elements: Elements, _ convert: (Elements.Element, ArrayIndexKey) throws -> T
    ) throws -> [T] {
        var elements = elements
        var result: [T] = []
        result.reserveCapacity(count)
        var index = 0
        while let element = elements.next() {
            result.append(try convert(element, ArrayIndexKey(index)))
            index += 1
        }
        return result
    }
}

/// The entries of the elements of an array on a tape.
struct TapeElements: Sequence {
    let decoder: JSONTapeDecoder
    let array: Int

    var count: Int { Int(decoder.tape[array].length) }

    func makeIterator() -> Iterator {
        Iterator(decoder: decoder, position: array + 1, last: decoder.end(of: array))
    }

    struct Iterator: IteratorProtocol {
        let decoder: JSONTapeDecoder
        var position: Int
        let last: Int

        mutating func next() -> Int? {
            guard position < last else { return nil }
            defer { position = decoder.end(of: position) }
            return position
        }
    }
}

extension JSONTapeDecoder {
    /// The strings of an array, read straight from the tape.
    func strings(ofArrayAt array: Int) throws -> [String] {
        let count = Int(tape[array].length)
        var result: [String] = []
        result.reserveCapacity(count)
        var position = array + 1
        for index in 0..<count {
            if tape[position].kind == .string {
                result.append(string(at: position))
            } else {
                result.append(try unwrapString(leaf(position), at: array, ArrayIndexKey(index)))
            }
            position = end(of: position)
        }
        return result
    }
}
