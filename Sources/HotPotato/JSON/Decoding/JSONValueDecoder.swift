import Foundation

/// A `Decoder` that reads `Decodable` types straight from a parsed ``JSON`` value, with the
/// strategies of a `JSONDecoder` and the `DecodingError`s it throws: the value is never written
/// back to text and scanned again.
///
/// One instance decodes a whole value: going into a nested value swaps the current value and
/// coding path and restores them afterwards, so that decoding allocates nothing per level beyond
/// the coding path's node.
final class JSONValueDecoder: JSONDecodingEngine {
    typealias Ref = JSON
    typealias Location = CodingPathNode

    let strategies: JSONDecodingStrategies
    let userInfo: [CodingUserInfoKey: Any]
    /// The value being decoded now.
    private(set) var current: JSON
    /// Where it is.
    private(set) var node: CodingPathNode
    /// Converted keys, by the key in the document (`.convertFromSnakeCase`).
    var convertedKeys: [JSONMemberName: String] = [:]
    /// Whether each type decoded so far is an array HotPotato decodes itself.
    @exclusivity(unchecked) private var arrayTypes = DecodableArrayTypes()

    var usesDefaultKeys: Bool { strategies.usesDefaultKeys }
    var codingPath: [any CodingKey] { node.path }
    var location: CodingPathNode { node }

    func path(_ location: CodingPathNode, adding key: (any CodingKey)?) -> [any CodingKey] {
        location.path(adding: key)
    }

    func location(of ref: JSON, at parent: CodingPathNode, _ key: (any CodingKey)?) -> CodingPathNode {
        key.map { parent.appending($0) } ?? parent
    }

    init(value: JSON, node: CodingPathNode = .root, strategies: JSONDecodingStrategies) {
        current = value
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
        switch current {
        case .object(let object): return KeyedDecodingContainer(KeyedContainer<Key>(decoder: self, object: object, node: node))
        default: throw containerError(keyed: true)
        }
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard isArray(current) else { throw containerError(keyed: false) }
        return UnkeyedContainer(decoder: self, site: node, cursor: arrayCursor(current))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        self
    }

    // MARK: - The engine

    func leaf(_ ref: JSON) -> JSON { ref }

    func materialize(_ ref: JSON) -> JSON { ref }

    @inline(__always)
    func with<R>(_ ref: JSON, at node: CodingPathNode, _ body: () throws -> R) rethrows -> R {
        let savedValue = current
        let savedNode = self.node
        current = ref
        self.node = node
        defer {
            current = savedValue
            self.node = savedNode
        }
        return try body()
    }

    func elements(of ref: JSON) -> [JSON]? {
        if case .array(let elements) = ref { return elements }
        return nil
    }

    func members(of ref: JSON) -> [(key: String, value: JSON)]? {
        guard case .object(let object) = ref else { return nil }
        let (keys, values) = object.parts
        return Array(zip(keys.keys, values))
    }

    func numberAsDouble(_ ref: JSON) -> Double? {
        if case .number(let number) = ref { return number.doubleValue }
        return nil
    }

    func numberAsInt64(_ ref: JSON) -> Int64? {
        if case .number(let number) = ref, case .integer(let value) = number.storage { return value }
        return nil
    }

    func isArray(_ ref: JSON) -> Bool {
        if case .array = ref { return true }
        return false
    }

    func decodeArray<T>(_ ref: JSON, as type: any DecodableArray.Type, at node: CodingPathNode, returning: T.Type) throws -> T {
        guard case .array(let elements) = ref else { preconditionFailure("decodeArray of a value that is not an array") }
        return try type.decodeElements(elements, with: self, at: node, returning: T.self)
    }

    func decodableArray<T>(_ type: T.Type) -> (any DecodableArray.Type)? {
        arrayTypes.lookUp(type)
    }

    func isNull(_ ref: JSON) -> Bool {
        if case .null = ref { return true }
        return false
    }

    func arrayCursor(_ ref: JSON) -> ArrayCursor {
        ArrayCursor(elements: elements(of: ref) ?? [])
    }

    /// Nothing to check: the value is held, not borrowed.
    func checkScope() {}

    /// Paths are made as the members are decoded, with their keys as written.
    func withKeysAsWritten<R>(in ref: JSON, _ body: () throws -> R) rethrows -> R {
        try body()
    }

    func subDecoder(_ ref: JSON, at node: CodingPathNode) -> any Decoder {
        JSONValueDecoder(value: ref, node: node, strategies: strategies)
    }
}
