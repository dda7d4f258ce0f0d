import Foundation

/// A `Decoder` that reads `Decodable` types straight from a body's bytes, through the tape the
/// parser recorded for them (see ``JSONTapeEntry``): no ``JSON`` value is made, and only the
/// strings a type asks for become `String`s. Strategies, special types and errors are
/// `JSONDecoder`'s, as in `JSONValueDecoder`.
///
/// The tape and the bytes must outlive the decoding; `JSONBackend.decode` and
/// `JSONDocument.Storage.read` scope them. A type may keep the `Decoder` or a container it was given (`JSONDecoder`'s stay
/// usable), but these point into a tape and bytes that are gone once the decoding returns: each
/// decoder made for one decoding shares a ``Scope``, closed when it returns, and using a decoder
/// or container of a closed scope stops the process rather than read freed memory.
final class JSONTapeDecoder: JSONDecodingEngine {
    typealias Ref = Int

    let tape: UnsafeBufferPointer<JSONTapeEntry>
    let bytes: UnsafeRawBufferPointer
    let strategies: JSONDecodingStrategies
    let duplicateKeys: JSONParsingOptions.DuplicateKeyPolicy
    let userInfo: [CodingUserInfoKey: Any]
    /// Whether the tape and bytes are still there; shared with the decoders made from this one.
    let scope: Scope
    /// The entry of the value being decoded now.
    private(set) var current: Int
    /// Where it is.
    private(set) var node: CodingPathNode
    /// Converted keys, by the key in the document (`.convertFromSnakeCase`).
    var convertedKeys: [JSONMemberName: String] = [:]
    /// Whether each type decoded so far is an array HotPotato decodes itself, by type.
    @exclusivity(unchecked) var arrayTypes: [ObjectIdentifier: (any DecodableArray.Type)?] = [:]

    var usesDefaultKeys: Bool { strategies.usesDefaultKeys }
    var codingPath: [any CodingKey] { node.path }

    init(
        tape: UnsafeBufferPointer<JSONTapeEntry>, bytes: UnsafeRawBufferPointer, at index: Int, node: CodingPathNode = .root,
        strategies: JSONDecodingStrategies, duplicateKeys: JSONParsingOptions.DuplicateKeyPolicy, scope: Scope = Scope()
    ) {
        self.scope = scope
        self.tape = tape
        self.bytes = bytes
        self.strategies = strategies
        self.duplicateKeys = duplicateKeys
        userInfo = strategies.userInfo
        current = index
        self.node = node
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        scope.check()
        switch tape[current].kind {
        case .object:
            return KeyedDecodingContainer(try KeyedContainer<Key>(decoder: self, object: current, node: node))
        case .null:
            throw DecodingError.valueNotFound([String: Any].self, DecodingError.Context(
                codingPath: codingPath, debugDescription: "Cannot get keyed decoding container -- found null value instead"))
        default:
            throw JSONDecodingErrors.typeMismatch([String: Any].self, found: leaf(current), at: codingPath)
        }
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        scope.check()
        switch tape[current].kind {
        case .array:
            return UnkeyedContainer(decoder: self, array: current, node: node)
        case .null:
            throw DecodingError.valueNotFound([Any].self, DecodingError.Context(
                codingPath: codingPath, debugDescription: "Cannot get unkeyed decoding container -- found null value instead"))
        default:
            throw JSONDecodingErrors.typeMismatch([Any].self, found: leaf(current), at: codingPath)
        }
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        scope.check()
        return self
    }

    // MARK: - Reading the tape

    /// The entry after the value at `index` (and everything in it).
    @inline(__always)
    func end(of index: Int) -> Int {
        JSONTapeLookup.end(of: index, in: tape)
    }

    /// The written bytes of a string, key or number entry.
    @inline(__always)
    func writtenBytes(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        let entry = tape[index]
        return UnsafeBufferPointer(
            start: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self) + Int(entry.payload), count: Int(entry.length))
    }

    /// The number of a number entry.
    func number(at index: Int) -> JSON.Number {
        JSON.Number(checkedJSON: writtenBytes(index))
    }

    func string(at index: Int) -> String {
        JSONTapeStrings.make(writtenBytes(index), flags: tape[index].flags)
    }

    /// Whether the key entry at `index` spells `key`.
    func key(at index: Int, is key: String) -> Bool {
        JSONTapeStrings.equals(writtenBytes(index), hasEscapes: tape[index].flags & JSONTapeEntry.hasEscapes != 0, key)
    }

    // MARK: - The engine

    func leaf(_ index: Int) -> JSON {
        scope.check()
        switch tape[index].kind {
        case .string, .key: return .string(string(at: index))
        case .number: return .number(JSON.Number(checkedJSON: writtenBytes(index)))
        case .true: return .bool(true)
        case .false: return .bool(false)
        case .null: return .null
        case .array: return .array([])
        case .object: return .object(JSON.Object())
        }
    }

    func materialize(_ index: Int) throws -> JSON {
        switch tape[index].kind {
        case .array:
            return .array(try elements(of: index)!.map { try materialize($0) })
        case .object:
            let members = try self.members(of: index)!
            return .object(JSON.Object(uniqueMembers: try members.map { JSON.Object.Member(key: $0.key, value: try materialize($0.value)) }))
        default:
            return leaf(index)
        }
    }

    @inline(__always)
    func with<R>(_ index: Int, at node: CodingPathNode, _ body: () throws -> R) rethrows -> R {
        scope.check()
        let savedIndex = current
        let savedNode = self.node
        current = index
        self.node = node
        defer {
            current = savedIndex
            self.node = savedNode
        }
        return try body()
    }

    func elements(of index: Int) -> [Int]? {
        guard tape[index].kind == .array else { return nil }
        return JSONTapeLookup.elements(of: index, in: tape)
    }

    func members(of index: Int) throws -> [(key: String, value: Int)]? {
        guard tape[index].kind == .object else { return nil }
        var members: [(key: String, value: Int)] = []
        members.reserveCapacity(Int(tape[index].length))
        var position = index + 1
        let last = end(of: index)
        var seen: [JSONMemberName: Int]? = tape[index].flags & JSONTapeEntry.mayRepeatKeys != 0 ? [:] : nil
        while position < last {
            let key = string(at: position)
            let value = position + 1
            if seen != nil, let earlier = seen![JSONMemberName(key)] {
                switch duplicateKeys {
                case .useLast: members[earlier].value = value
                case .useFirst: break
                case .reject: throw repeatedKey(key, at: position)
                }
            } else {
                seen?[JSONMemberName(key)] = members.count
                members.append((key, value))
            }
            position = end(of: value)
        }
        return members
    }

    func numberAsDouble(_ index: Int) -> Double? {
        scope.check()
        return tape[index].kind == .number ? JSONDoubleParsing.double(writtenBytes(index)) : nil
    }

    func numberAsInt64(_ index: Int) -> Int64? {
        scope.check()
        guard tape[index].kind == .number, case .integer(let value) = number(at: index).storage else { return nil }
        return value
    }

    func decodeArray(_ index: Int, as type: any DecodableArray.Type, at node: CodingPathNode) throws -> Any? {
        scope.check()
        guard tape[index].kind == .array else { return nil }
        return try type.decodeElements(ofArrayAt: index, with: self, at: node)
    }

    func decodableArray<T>(_ type: T.Type) -> (any DecodableArray.Type)? {
        let identifier = ObjectIdentifier(type)
        if let known = arrayTypes[identifier] { return known }
        let array = type as? any DecodableArray.Type
        arrayTypes[identifier] = .some(array)
        return array
    }

    func subDecoder(_ index: Int, at node: CodingPathNode) -> any Decoder {
        JSONTapeDecoder(tape: tape, bytes: bytes, at: index, node: node, strategies: strategies, duplicateKeys: duplicateKeys, scope: scope)
    }

    /// The error for a key that appears twice under ``JSONParsingOptions/DuplicateKeyPolicy/reject``,
    /// found only now since the tape notes only that keys may repeat.
    private func repeatedKey(_ key: String, at index: Int) -> HotPotatoError {
        let offset = Int(tape[index].payload) - 1
        let before = UnsafeRawBufferPointer(rebasing: bytes[..<offset])
        let line = before.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
        let lineStart = (before.lastIndex(of: 0x0A).map { $0 + 1 }) ?? 0
        let syntax = JSONSyntaxError(
            reason: "The key \"\(key)\" appears twice in an object", offset: Int64(offset), line: line, column: offset - lineStart + 1)
        return syntax.hotPotatoError(head: nil, intermediate: nil)
    }

    // MARK: - Key paths

    /// The entry at a dot-separated key path (as ``JSON/subscript(_:)-(String)`` reads one), or
    /// `nil` when a step is missing.
    func entry(atKeyPath keyPath: String, from root: Int) throws -> Int? {
        try JSONTapeLookup.entry(
            atKeyPath: keyPath, from: root, in: tape, member: { try member($0, of: $1) }, element: { element($0, of: $1) })
    }

    /// The value entry of the member `key` of the object at `object`, by the duplicate-key
    /// policy, comparing the key with the written bytes (no `String` is made for the others).
    func member(_ key: String, of object: Int) throws -> Int? {
        let mayRepeat = tape[object].flags & JSONTapeEntry.mayRepeatKeys != 0
        if mayRepeat, duplicateKeys == .reject {
            return try members(of: object)!.first(where: { JSONMemberName.same($0.key, key) })?.value
        }
        return JSONTapeLookup.member(key, of: object, in: tape, bytes: bytes, useFirst: duplicateKeys == .useFirst)
    }

    /// The entry of element `index` of the array at `array`, or `nil` when out of range.
    func element(_ index: Int, of array: Int) -> Int? {
        JSONTapeLookup.element(index, of: array, in: tape)
    }
}

extension JSONTapeDecoder {
    /// One decoding's hold on its tape and bytes: open while the decoding runs, closed when it
    /// returns.
    final class Scope {
        private(set) var isOpen = true

        func close() {
            isOpen = false
        }

        /// Stops the process if the scope is closed: the tape and bytes are gone.
        @inline(__always)
        func check() {
            precondition(isOpen, "A JSON Decoder or decoding container was used after the decoding that gave it out had returned")
        }
    }
}
