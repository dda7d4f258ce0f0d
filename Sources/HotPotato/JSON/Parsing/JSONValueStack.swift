/// The values and keys of the arrays and objects the parser has open, on one stack for all of
/// them: a container's children lie above its start and, when it closes, are moved (not copied)
/// into an array of exactly their number.
///
/// Raw memory rather than Swift arrays, so that moving a run of children out costs no retain or
/// release and no uniqueness checks; owned by the parser, which cannot be copied.
struct JSONValueStack: ~Copyable {
    private var values: UnsafeMutablePointer<JSON>
    private var valueCapacity: Int
    private(set) var valueCount = 0

    private var keys: UnsafeMutablePointer<String>
    /// A cheap summary of each key's bytes, compared before the keys themselves.
    private var fingerprints: UnsafeMutablePointer<UInt64>
    private var keyCapacity: Int
    private(set) var keyCount = 0

    init() {
        valueCapacity = 64
        values = .allocate(capacity: valueCapacity)
        keyCapacity = 64
        keys = .allocate(capacity: keyCapacity)
        fingerprints = .allocate(capacity: keyCapacity)
    }

    deinit {
        values.deinitialize(count: valueCount)
        values.deallocate()
        keys.deinitialize(count: keyCount)
        keys.deallocate()
        fingerprints.deallocate()
    }

    // MARK: - Values

    mutating func push(_ value: consuming JSON) {
        if valueCount == valueCapacity { growValues() }
        (values + valueCount).initialize(to: value)
        valueCount += 1
    }

    mutating func replaceValue(at index: Int, with value: consuming JSON) {
        values[index] = value
    }

    /// Moves the values from `start` to the top into an array, with room for at least
    /// `minimumCapacity`.
    mutating func popArray(from start: Int, minimumCapacity: Int = 0) -> [JSON] {
        let count = valueCount - start
        guard count > 0 else { return [] }
        let source = values + start
        valueCount = start
        // reserveCapacity and append, rather than `init(unsafeUninitializedCapacity:)`, whose
        // unspecialised allocation looks the storage type up at run time on every call.
        var array: [JSON] = []
        array.reserveCapacity(Swift.max(count, minimumCapacity))
        for index in 0..<count { array.append((source + index).move()) }
        return array
    }

    /// Moves the values from `valueStart` to the top into an object, with the keys from
    /// `keyStart` (as many) as its key set: one the object shares with an earlier object with the
    /// same keys when `keySets` has it.
    mutating func popObject(
        keysFrom keyStart: Int, valuesFrom valueStart: Int, positions: [JSONMemberName: Int]?, keySets: inout JSONObjectKeysCache
    ) -> JSON.Object {
        let count = valueCount - valueStart
        precondition(count == keyCount - keyStart, "An object has as many keys as values")
        guard count > 0 else { return JSON.Object() }
        let keySet = keySets.keys(taking: keys + keyStart, fingerprints: fingerprints + keyStart, count: count, positions: positions)
        keyCount = keyStart
        return JSON.Object(keys: keySet, values: popArray(from: valueStart, minimumCapacity: Self.objectCapacity))
    }

    /// The least room an object's values are given: four values make a buffer of 128 bytes, more
    /// than glibc keeps in its "fast bins". Chunks there are not merged when freed, and a tree of
    /// many small objects left hundreds of thousands of them, cold, for one consolidation when the
    /// tree's last, large buffer was freed: with objects of three values exactly sized, freeing
    /// took about 15 % more of the time of parsing the mixed benchmark document (see
    /// Benchmarks/notes/jsontree.md). Arrays keep their exact size.
    static let objectCapacity = 4

    private mutating func growValues() {
        let capacity = valueCapacity * 2
        let grown = UnsafeMutablePointer<JSON>.allocate(capacity: capacity)
        grown.moveInitialize(from: values, count: valueCount)
        values.deallocate()
        values = grown
        valueCapacity = capacity
    }

    // MARK: - Keys

    mutating func pushKey(_ key: consuming String, fingerprint: UInt64) {
        if keyCount == keyCapacity { growKeys() }
        (keys + keyCount).initialize(to: key)
        fingerprints[keyCount] = fingerprint
        keyCount += 1
    }

    func key(at index: Int) -> String {
        keys[index]
    }

    /// Where `key` is among the keys from `start` to the top, relative to `start`.
    func position(of key: borrowing String, fingerprint: UInt64, from start: Int) -> Int? {
        var index = start
        while index < keyCount {
            if fingerprints[index] == fingerprint, JSONMemberName.same(keys[index], key) { return index - start }
            index += 1
        }
        return nil
    }

    private mutating func growKeys() {
        let capacity = keyCapacity * 2
        let grownKeys = UnsafeMutablePointer<String>.allocate(capacity: capacity)
        grownKeys.moveInitialize(from: keys, count: keyCount)
        keys.deallocate()
        keys = grownKeys
        let grownFingerprints = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
        grownFingerprints.initialize(from: fingerprints, count: keyCount)
        fingerprints.deallocate()
        fingerprints = grownFingerprints
        keyCapacity = capacity
    }

    /// The fingerprint of the empty key.
    static let emptyFingerprint: UInt64 = 0

    /// A summary of a key's UTF-8 bytes: equal keys have equal fingerprints.
    static func fingerprint(_ bytes: UnsafePointer<UInt8>, count: Int) -> UInt64 {
        let raw = UnsafeRawPointer(bytes)
        if count >= 8 {
            let first = raw.loadUnaligned(as: UInt64.self)
            let last = raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            return first ^ (last << 29 | last >> 35) ^ UInt64(truncatingIfNeeded: count) &* 0x9E37_79B9_7F4A_7C15
        }
        var value = UInt64(truncatingIfNeeded: count) << 56
        for index in 0..<count { value |= UInt64(bytes[index]) << (8 * UInt64(index)) }
        return value
    }
}
