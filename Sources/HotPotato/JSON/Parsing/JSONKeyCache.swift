/// The keys the parser made lately, found again by their bytes: documents repeat the same keys in
/// every record, and a key found here costs no validation, no copy and, for keys longer than
/// fifteen bytes, no allocation.
struct JSONKeyCache {
    private struct Entry {
        var fingerprint: UInt64
        var count: Int
        var key: String
    }

    private static let size = 128
    private var entries: [Entry] = []

    /// The key whose UTF-8 bytes are `bytes[0..<count]`, if it is in the cache.
    func key(_ bytes: UnsafePointer<UInt8>, count: Int, fingerprint: UInt64) -> String? {
        guard !entries.isEmpty else { return nil }
        let entry = entries[Self.slot(fingerprint)]
        guard entry.fingerprint == fingerprint, entry.count == count else { return nil }
        // Up to eight bytes, the fingerprint holds the bytes themselves.
        if count <= 8 { return entry.key }
        let same = entry.key.utf8.withContiguousStorageIfAvailable { stored in
            stored.elementsEqual(UnsafeBufferPointer(start: bytes, count: count))
        }
        return same == true ? entry.key : nil
    }

    /// Remembers a key made from `count` bytes with `fingerprint`.
    mutating func insert(_ key: String, count: Int, fingerprint: UInt64) {
        if entries.isEmpty {
            entries = Array(repeating: Entry(fingerprint: 0, count: -1, key: ""), count: Self.size)
        }
        entries[Self.slot(fingerprint)] = Entry(fingerprint: fingerprint, count: count, key: key)
    }

    private static func slot(_ fingerprint: UInt64) -> Int {
        Int(truncatingIfNeeded: (fingerprint &* 0x9E37_79B9_7F4A_7C15) >> 57)
    }
}
