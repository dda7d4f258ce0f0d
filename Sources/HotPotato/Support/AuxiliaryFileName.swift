/// The names of the files HotPotato keeps beside a download's destination — its partial file and
/// record, a temporary file — which must fit the file system's 255-byte limit on a name even
/// when the destination's own name is near it.
///
/// Each is `.<stem><suffix>`. The stem is the destination's name when there is room; for a longer
/// name it is the name's first bytes (cut at a character boundary), `~` and 16 hexadecimal digits
/// of a hash of the whole name, so that two long names with the same beginning get different
/// files, and the same name gets the same files in every process.
enum AuxiliaryFileName {
    /// The longest name most file systems accept, in bytes (`NAME_MAX`).
    static let maximumLength = 255
    /// Room kept for the longest suffix (`.hotpotato-<13 characters>.part`) and the leading dot.
    private static let reserved = 33

    /// The stem of the auxiliary names for a destination named `name`.
    static func stem(for name: String) -> String {
        let bytes = Array(name.utf8)
        guard bytes.count + reserved > maximumLength else { return name }
        let hash = String(fnv1a(bytes), radix: 16)
        let digits = String(repeating: "0", count: 16 - hash.count) + hash
        let room = maximumLength - reserved - 17
        var prefix = ""
        var used = 0
        for scalar in name.unicodeScalars {
            let size = UTF8.width(scalar)
            if used + size > room { break }
            prefix.unicodeScalars.append(scalar)
            used += size
        }
        return prefix + "~" + digits
    }

    /// `.<stem><suffix>` for a destination named `name`.
    static func name(for name: String, suffix: String) -> String {
        "." + stem(for: name) + suffix
    }

    /// The 64-bit FNV-1a hash: stable across processes and platforms, unlike `Hasher`.
    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
