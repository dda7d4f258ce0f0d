/// `[Element]`, decoded element by element straight from a JSON array, rather than through
/// `Array.init(from:)` and an unkeyed container held as an existential.
protocol DecodableArray {
    static func decodeElements(_ elements: [JSON], with decoder: JSONValueDecoder, at node: CodingPathNode) throws -> Self
}

extension Array: DecodableArray where Element: Decodable {
    static func decodeElements(_ elements: [JSON], with decoder: JSONValueDecoder, at node: CodingPathNode) throws -> Self {
        // The common element types without a generic call per element.
        if Element.self == String.self {
            return unsafeBitCast(try decoder.primitives(elements, at: node) { try decoder.unwrapString($0, at: node, $1) }, to: Self.self)
        }
        if Element.self == Int.self {
            return unsafeBitCast(try decoder.primitives(elements, at: node) { try decoder.unwrapInteger($0, as: Int.self, at: node, $1) }, to: Self.self)
        }
        if Element.self == Double.self {
            return unsafeBitCast(try decoder.primitives(elements, at: node) { try decoder.unwrapFloatingPoint($0, as: Double.self, at: node, $1) }, to: Self.self)
        }
        if Element.self == Bool.self {
            return unsafeBitCast(try decoder.primitives(elements, at: node) { try decoder.unwrapBool($0, at: node, $1) }, to: Self.self)
        }
        var result: [Element] = []
        result.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            result.append(try decoder.unwrap(element, as: Element.self, at: node, ArrayIndexKey(index)))
        }
        return result
    }
}

extension JSONValueDecoder {
    /// The elements of an array, each converted by `convert`.
    func primitives<T>(_ elements: [JSON], at node: CodingPathNode, _ convert: (JSON, ArrayIndexKey) throws -> T) throws -> [T] {
        var result: [T] = []
        result.reserveCapacity(elements.count)
        for index in elements.indices {
            result.append(try convert(elements[index], ArrayIndexKey(index)))
        }
        return result
    }

    /// An array of `type` from `value`, with `JSONDecoder`'s errors for what is not an array.
    func unwrapArray<T>(_ value: JSON, as type: (any DecodableArray.Type), at node: CodingPathNode, _ key: (any CodingKey)?) throws -> T {
        let inner = key.map { node.appending($0) } ?? node
        guard case .array(let elements) = value else {
            if case .null = value {
                throw DecodingError.valueNotFound([Any].self, DecodingError.Context(
                    codingPath: inner.path, debugDescription: "Cannot get unkeyed decoding container -- found null value instead"))
            }
            throw Self.typeMismatch([Any].self, found: value, at: inner.path)
        }
        return try type.decodeElements(elements, with: self, at: inner) as! T
    }
}
