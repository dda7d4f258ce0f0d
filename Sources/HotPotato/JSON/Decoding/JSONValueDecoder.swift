import Foundation

/// A `Decoder` that reads `Decodable` types straight from a parsed ``JSON`` value, with the
/// strategies of a `JSONDecoder` and the `DecodingError`s it throws: the value is never written
/// back to text and scanned again.
///
/// One instance decodes a whole value: going into a nested value swaps the current value and
/// coding path and restores them afterwards, so that decoding allocates nothing per level beyond
/// the coding path's node.
final class JSONValueDecoder: Decoder {
    let strategies: JSONDecodingStrategies
    let userInfo: [CodingUserInfoKey: Any]
    /// The value being decoded now.
    private(set) var value: JSON
    /// Where it is.
    private(set) var node: CodingPathNode
    /// Converted keys, by the key in the document (`.convertFromSnakeCase`).
    var convertedKeys: [String: String] = [:]

    var codingPath: [any CodingKey] { node.path }

    init(value: JSON, node: CodingPathNode = .root, strategies: JSONDecodingStrategies) {
        self.value = value
        self.node = node
        self.strategies = strategies
        userInfo = strategies.userInfo
    }

    /// Decodes `type` from the value.
    static func decode<T: Decodable>(_ type: T.Type, from value: JSON, using decoder: JSONDecoder) throws -> T {
        try decode(type, from: value, strategies: JSONDecodingStrategies(decoder))
    }

    /// Decodes `type` from the value with strategies read from a `JSONDecoder` beforehand.
    static func decode<T: Decodable>(_ type: T.Type, from value: JSON, strategies: JSONDecodingStrategies) throws -> T {
        let impl = JSONValueDecoder(value: value, strategies: strategies)
        return try impl.unwrap(value, as: type, at: .root, nil)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        switch value {
        case .object(let object):
            return KeyedDecodingContainer(KeyedContainer<Key>(decoder: self, object: object, node: node))
        case .null:
            throw DecodingError.valueNotFound([String: Any].self, DecodingError.Context(
                codingPath: codingPath, debugDescription: "Cannot get keyed decoding container -- found null value instead"))
        default:
            throw Self.typeMismatch([String: Any].self, found: value, at: codingPath)
        }
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        switch value {
        case .array(let elements):
            return UnkeyedContainer(decoder: self, elements: elements, node: node)
        case .null:
            throw DecodingError.valueNotFound([Any].self, DecodingError.Context(
                codingPath: codingPath, debugDescription: "Cannot get unkeyed decoding container -- found null value instead"))
        default:
            throw Self.typeMismatch([Any].self, found: value, at: codingPath)
        }
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        self
    }

    /// Runs `body` with `value` at `node` as the current value, then restores the current one.
    @inline(__always)
    func with<T>(_ value: JSON, at node: CodingPathNode, _ body: () throws -> T) rethrows -> T {
        let savedValue = self.value
        let savedNode = self.node
        self.value = value
        self.node = node
        defer {
            self.value = savedValue
            self.node = savedNode
        }
        return try body()
    }

    // MARK: - Errors

    static func typeMismatch(_ type: Any.Type, found value: JSON, at path: [any CodingKey]) -> DecodingError {
        DecodingError.typeMismatch(type, DecodingError.Context(
            codingPath: path, debugDescription: "Expected to decode \(type) but found \(describe(value)) instead."))
    }

    static func describe(_ value: JSON) -> String {
        switch value {
        case .null: return "null"
        case .bool: return "bool"
        case .number: return "number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "a dictionary"
        }
    }
}
