import Foundation

/// A `Decoder` that reads `Decodable` types straight from a body's bytes, through the tape the
/// parser recorded for them (see ``JSONTapeEntry``): no ``JSON`` value is made, and only the
/// strings a type asks for become `String`s. Strategies, special types and errors are
/// `JSONDecoder`'s, as in `JSONValueDecoder`.
///
/// A value is known by its tape entry, and so is where it is: a coding path is worked out from
/// the tape when one is asked for (an error, `codingPath`), so going one level deeper allocates
/// nothing and retains nothing.
///
/// The tape and the bytes must outlive the decoding; `JSONBackend.decode` and
/// `JSONDocument.Storage.read` scope them. A type may keep the `Decoder` or a container it was
/// given (`JSONDecoder`'s stay usable), but these point into a tape and bytes that are gone once
/// the decoding returns: each decoder made for one decoding shares a ``JSONDecodingScope``,
/// closed when it returns, and using a decoder or container of a closed scope stops the process
/// rather than read freed memory.
final class JSONTapeDecoder: JSONDecodingEngine {
    typealias Ref = Int
    typealias Location = Int

    let tape: UnsafeBufferPointer<JSONTapeEntry>
    let bytes: UnsafeRawBufferPointer
    let strategies: JSONDecodingStrategies
    let duplicateKeys: JSONParsingOptions.DuplicateKeyPolicy
    let userInfo: [CodingUserInfoKey: Any]
    /// ``JSONSmallString/isUsable``, read once.
    let smallStrings: Bool
    /// Whether the tape and bytes are still there; shared with the decoders made from this one.
    let scope: JSONDecodingScope
    /// The decoding's first decoder, which lives as long as the scope is open, for containers
    /// to reach without retaining it; `nil` in that decoder itself.
    let first: Unmanaged<JSONTapeDecoder>?
    /// Where each object's next key is most likely to be, shared by the decoders of the decoding
    /// and freed with its first. Made when the first keyed container needs it, so that a decoding
    /// that meets no object (a `JSONDocument`'s `arrayValue`, a number) does not pay for it.
    var keyHints: JSONTapeKeyHints {
        if let hints = hintTable { return hints }
        let hints = JSONTapeKeyHints()
        hintTable = hints
        hintSlots = hints.slots
        return hints
    }
    @exclusivity(unchecked) private var hintTable: JSONTapeKeyHints?
    /// `hintTable`'s slots, once it is made: what every keyed container reads, without the
    /// retain and release that reaching through the class reference cost (2–3 % more cycles
    /// decoding the mixed benchmark document).
    @exclusivity(unchecked) private var hintSlots: UnsafeMutablePointer<JSONTapeKeyHints.Hint>?

    /// The key-hint slot of the object at `object`; makes the table on first use.
    @inline(__always)
    func hintSlot(for object: Int) -> UnsafeMutablePointer<JSONTapeKeyHints.Hint> {
        if let slots = hintSlots { return JSONTapeKeyHints.slot(for: object, in: slots) }
        return keyHints.slot(for: object)
    }
    /// Keyed containers given out, to be given out again once nothing else holds them: the
    /// block being filled, how many of its slots are, and the blocks filled before it.
    @exclusivity(unchecked) var containerBlock: UnsafeMutablePointer<ReusableKeyedContainer>?
    @exclusivity(unchecked) var containerCount = 0
    @exclusivity(unchecked) var fullContainerBlocks: [UnsafeMutablePointer<ReusableKeyedContainer>] = []

    deinit {
        if let containerBlock {
            containerBlock.deinitialize(count: containerCount)
            containerBlock.deallocate()
        }
        for block in fullContainerBlocks {
            block.deinitialize(count: Self.containersPerBlock)
            block.deallocate()
        }
    }

    /// The entry whose coding path is empty: where the decoding started.
    private(set) var root: Int
    /// The entry of the value being decoded now.
    private(set) var current: Int
    /// Converted keys, by the key in the document (`.convertFromSnakeCase`).
    var convertedKeys: [JSONMemberName: String] = [:]
    /// The key tables of the last objects that needed one (see ``lookup(for:)``).
    ///
    /// Made up front, unlike ``keyHints``, although most decodings never use it: with the slots
    /// made on first use, decoding the string-heavy benchmark document over and over took 19.2 k
    /// page faults per run rather than 3.5 k (glibc then returned the freed strings' heap to the
    /// system after each run) and about 20 % more cycles. See `Benchmarks/history/2026-11-log.md`, "Page faults".
    var lookups = [(object: Int, table: [JSONMemberName: Int])?](repeating: nil, count: lookupSlots)
    static let lookupSlots = 16
    /// Whether each type decoded so far is an array HotPotato decodes itself.
    @exclusivity(unchecked) private var arrayTypes = DecodableArrayTypes()
    /// The objects being decoded as `[String: Value]` now, whose keys coding paths name as
    /// written.
    var keysAsWritten: [Int] = []
    /// The last element a coding path went through, so that asking for the paths of an array's
    /// elements in turn does not walk the array from its start each time.
    var lastElement: (array: Int, index: Int, entry: Int)?

    var usesDefaultKeys: Bool { strategies.usesDefaultKeys }
    var codingPath: [any CodingKey] { path(current, adding: nil) }
    var location: Int { current }

    /// The first decoder of a decoding, at `index`, which is also where coding paths start; the
    /// caller closes `scope` when the decoding returns.
    init(
        tape: UnsafeBufferPointer<JSONTapeEntry>, bytes: UnsafeRawBufferPointer, at index: Int,
        strategies: JSONDecodingStrategies, duplicateKeys: JSONParsingOptions.DuplicateKeyPolicy
    ) {
        scope = .open()
        first = nil
        smallStrings = JSONSmallString.isUsable
        self.tape = tape
        self.bytes = bytes
        self.strategies = strategies
        self.duplicateKeys = duplicateKeys
        userInfo = strategies.userInfo
        root = index
        current = index
    }

    /// A decoder of `first`'s decoding at `index`.
    private init(sharing first: JSONTapeDecoder, at index: Int) {
        scope = first.scope
        self.first = first.owner
        smallStrings = first.smallStrings
        let hints = first.keyHints
        hintTable = hints
        hintSlots = hints.slots
        tape = first.tape
        bytes = first.bytes
        strategies = first.strategies
        duplicateKeys = first.duplicateKeys
        userInfo = first.userInfo
        root = first.root
        current = index
    }

    /// The decoding's first decoder.
    var owner: Unmanaged<JSONTapeDecoder> { first ?? Unmanaged.passUnretained(self) }

    /// Decodes `type` from the value at `index`, where coding paths start.
    func decode<T: Decodable>(_ type: T.Type, at index: Int) throws -> T {
        root = index
        return try unwrap(index, as: type, at: index, nil)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        scope.check()
        switch tape[current].kind {
        case .object: return try keyedContainer(keyedBy: type, object: current)
        default: throw containerError(keyed: true)
        }
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        scope.check()
        guard tape[current].kind == .array else { throw containerError(keyed: false) }
        return UnkeyedContainer(decoder: self, site: current, cursor: arrayCursor(current))
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

    /// The value of a number's written bytes (checked by the parser) when they are an integer of
    /// at most 18 digits, as `JSON.Number(checkedJSON:)` reads it, without making the number;
    /// `nil` for anything else (a fraction, an exponent, more digits).
    @inline(__always)
    static func smallInteger(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        let count = bytes.count
        guard count > 0, count <= 19 else { return nil }
        var index = bytes[0] == UInt8(ascii: "-") ? 1 : 0
        guard index < count, count - index <= 18 else { return nil }
        let negative = index == 1
        var value: Int64 = 0
        while index < count {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value &* 10 &+ Int64(digit)
            index += 1
        }
        return negative ? -value : value
    }

    func string(at index: Int) -> String {
        JSONTapeStrings.make(writtenBytes(index), flags: tape[index].flags, smallStrings: smallStrings)
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
            guard !members.isEmpty else { return .object(JSON.Object()) }
            return .object(JSON.Object(
                keys: JSONObjectKeys(unique: members.map(\.key), positions: nil), values: try members.map { try materialize($0.value) }))
        default:
            return leaf(index)
        }
    }

    @inline(__always)
    func with<R>(_ index: Int, at location: Int, _ body: () throws -> R) rethrows -> R {
        scope.check()
        let saved = current
        current = index
        defer { current = saved }
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
        guard tape[index].kind == .number else { return nil }
        if let value = Self.smallInteger(writtenBytes(index)) { return value }
        guard case .integer(let value) = number(at: index).storage else { return nil }
        return value
    }

    func isArray(_ index: Int) -> Bool {
        scope.check()
        return tape[index].kind == .array
    }

    func decodeArray<T>(_ index: Int, as type: any DecodableArray.Type, at location: Int, returning: T.Type) throws -> T {
        try type.decodeElements(ofArrayAt: index, with: self, returning: T.self)
    }

    func decodableArray<T>(_ type: T.Type) -> (any DecodableArray.Type)? {
        arrayTypes.lookUp(type)
    }

    func isNull(_ index: Int) -> Bool {
        tape[index].kind == .null
    }

    func arrayCursor(_ index: Int) -> ArrayCursor {
        ArrayCursor(tape: tape, position: index + 1, count: Int(tape[index].length))
    }

    @inline(__always)
    func checkScope() {
        scope.check()
    }

    func subDecoder(_ index: Int, at location: Int) -> any Decoder {
        JSONTapeDecoder(sharing: self, at: index)
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
