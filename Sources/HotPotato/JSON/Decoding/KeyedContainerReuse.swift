/// Whether a `KeyedDecodingContainer` may be kept as the one object reference it holds and given
/// out again (see ``JSONTapeDecoder/ReusableKeyedContainer``). Checked once, in the process, by
/// making a container around a probe and reading it back — never assumed.
///
/// `KeyedDecodingContainer` is a struct whose only stored property is the box it keeps its
/// container in: that is the standard library's layout, not its API. Reusing the box saves 7 % of
/// the instructions of decoding the mixed benchmark document and a malloc and free per object
/// decoded (the box's metadata look-up and allocation). Were the layout ever different — a
/// container of another size, or one that is not a single reference — the check says so and every
/// container is made afresh, as `JSONDecoder` makes them: slower, never wrong.
enum KeyedContainerReuse {
    /// The answer, computed on first use (a global's lazy, thread-safe initialisation).
    static let isSupported: Bool = check()

    private struct ProbeKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// A container that answers with a path only it knows.
    private struct Probe: KeyedDecodingContainerProtocol {
        static let marker = "HotPotato.KeyedContainerReuse"
        var codingPath: [any CodingKey] { [ProbeKey(stringValue: Self.marker)!] }
        var allKeys: [ProbeKey] { [] }
        func contains(_ key: ProbeKey) -> Bool { false }
        func decodeNil(forKey key: ProbeKey) throws -> Bool { true }
        func decode<T: Decodable>(_ type: T.Type, forKey key: ProbeKey) throws -> T {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: ""))
        }
        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type, forKey key: ProbeKey
        ) throws -> KeyedDecodingContainer<NestedKey> {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: ""))
        }
        func nestedUnkeyedContainer(forKey key: ProbeKey) throws -> any UnkeyedDecodingContainer {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: ""))
        }
        func superDecoder() throws -> any Decoder { throw DecodingError.valueNotFound(Int.self, .init(codingPath: [], debugDescription: "")) }
        func superDecoder(forKey key: ProbeKey) throws -> any Decoder { try superDecoder() }
    }

    private static func check() -> Bool {
        // Sizes first: `unsafeBitCast` between types of different sizes traps.
        guard MemoryLayout<KeyedDecodingContainer<ProbeKey>>.size == MemoryLayout<AnyObject>.size,
              MemoryLayout<KeyedDecodingContainer<ProbeKey>>.alignment == MemoryLayout<AnyObject>.alignment
        else { return false }
        let container = KeyedDecodingContainer(Probe())
        // The one word must look like a heap object's address (not null, 16-byte aligned) before
        // it is taken for a reference, then be an instance of the standard library's box class,
        // and give back, cast again, a container that answers as the probe does.
        let word = withUnsafeBytes(of: container) { $0.load(as: UInt.self) }
        guard word != 0, word % 16 == 0 else { return false }
        let box = unsafeBitCast(container, to: AnyObject.self)
        guard _typeName(type(of: box), qualified: false).contains("KeyedDecodingContainerBox") else { return false }
        let back = unsafeBitCast(box, to: KeyedDecodingContainer<ProbeKey>.self)
        return back.codingPath.first?.stringValue == Probe.marker
    }
}
