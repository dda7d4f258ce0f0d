/// `[Element]`, decoded element by element straight from a JSON array, rather than through
/// `Array.init(from:)` and an unkeyed container held as an existential.
///
/// One requirement per decoder rather than one generic over both: the common element types are
/// then decoded by fully specialised code.
protocol DecodableArray {
    static func decodeElements(_ elements: [JSON], with decoder: JSONValueDecoder, at node: CodingPathNode) throws -> Self
    static func decodeElements(ofArrayAt array: Int, with decoder: JSONTapeDecoder, at node: CodingPathNode) throws -> Self
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
        var result: [Element] = []
        result.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            result.append(try decoder.unwrap(element, as: Element.self, at: node, ArrayIndexKey(index)))
        }
        return result
    }

    static func decodeElements(ofArrayAt array: Int, with decoder: JSONTapeDecoder, at node: CodingPathNode) throws -> Self {
        // The common element types without a generic call per element.
        if Element.self == String.self {
            return unsafeBitCast(try decoder.strings(ofArrayAt: array, at: node), to: Self.self)
        }
        var result: [Element] = []
        result.reserveCapacity(Int(decoder.tape[array].length))
        var position = array + 1
        for index in 0..<Int(decoder.tape[array].length) {
            result.append(try decoder.unwrap(position, as: Element.self, at: node, ArrayIndexKey(index)))
            position = decoder.end(of: position)
        }
        return result
    }
}

extension JSONTapeDecoder {
    /// The strings of an array, read straight from the tape.
    func strings(ofArrayAt array: Int, at node: CodingPathNode) throws -> [String] {
        let count = Int(tape[array].length)
        var result: [String] = []
        result.reserveCapacity(count)
        var position = array + 1
        for index in 0..<count {
            if tape[position].kind == .string {
                result.append(string(at: position))
            } else {
                result.append(try unwrapString(leaf(position), at: node, ArrayIndexKey(index)))
            }
            position = end(of: position)
        }
        return result
    }
}
