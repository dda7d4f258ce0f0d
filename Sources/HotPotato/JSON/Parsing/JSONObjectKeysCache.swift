/// The key sets (``JSONObjectKeys``) of the objects the parser made lately, found again by their
/// keys: the records of a document have the same keys in the same order, and an object whose
/// keys are found here shares them rather than keeping a copy of its own.
///
/// A table of 256 slots, each chosen by a hash of the keys' fingerprints. A key set not found is
/// made and put in its slot; one found costs a comparison of the keys, most of which are the very
/// strings of ``JSONKeyCache`` and compare as such.
struct JSONObjectKeysCache {
    private struct Entry {
        var hash: UInt64
        var keys: JSONObjectKeys
    }

    private static let size = 256
    private var entries: [Entry?] = []

    /// The key set of the `count` keys at `keys` (whose fingerprints are at `fingerprints`), which
    /// are unique; `positions` is their key → position table when the parser has one. Takes the
    /// keys: they are moved into a new key set, or deinitialized when an equal one is found.
    mutating func keys(
        taking keys: UnsafeMutablePointer<String>, fingerprints: UnsafePointer<UInt64>, count: Int,
        positions: [JSONMemberName: Int]?
    ) -> JSONObjectKeys {
        var hash = UInt64(truncatingIfNeeded: count) &* 0x9E37_79B9_7F4A_7C15
        for index in 0..<count {
            hash = (hash ^ fingerprints[index]) &* 0x100_0000_01B3
            hash ^= hash >> 29
        }
        if entries.isEmpty { entries = Array(repeating: nil, count: Self.size) }
        let slot = Int(truncatingIfNeeded: (hash &* 0x9E37_79B9_7F4A_7C15) >> 56)
        if let entry = entries[slot], entry.hash == hash, Self.same(entry.keys.keys, keys, count: count) {
            keys.deinitialize(count: count)
            return entry.keys
        }
        var unique: [String] = []
        unique.reserveCapacity(count)
        for index in 0..<count { unique.append((keys + index).move()) }
        let made = JSONObjectKeys(unique: unique, positions: positions)
        entries[slot] = Entry(hash: hash, keys: made)
        return made
    }

    /// Whether `cached` holds the `count` keys at `keys`, in order, by their bytes.
    private static func same(_ cached: [String], _ keys: UnsafeMutablePointer<String>, count: Int) -> Bool {
        guard cached.count == count else { return false }
        return cached.withUnsafeBufferPointer { cached in
            for index in 0..<count {
                // The same string (the key cache's) or the same small string: the same bits.
                if bits(cached[index]) != bits(keys[index]), !JSONMemberName.same(cached[index], keys[index]) { return false }
            }
            return true
        }
    }

    @inline(__always)
    private static func bits(_ string: String) -> (UInt64, UInt64) {
        unsafeBitCast(string, to: (UInt64, UInt64).self)
    }
}
