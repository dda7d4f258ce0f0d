/// One token of a document parsed into a tape: the parser's `.tape` mode records the structure of
/// a document and where its strings and numbers are in the body, without making a value of
/// anything, so that a `Decodable` type can be decoded from the body's bytes directly.
///
/// Twelve bytes a token; offsets are 32-bit, so a tape covers documents below 4 GiB.
struct JSONTapeEntry {
    enum Kind: UInt8 {
        case object, array, string, key, number, `true`, `false`, null
    }

    /// Strings and keys: escapes to decode.
    static let hasEscapes: UInt8 = 1
    /// Strings and keys: bytes beyond ASCII.
    static let hasNonASCII: UInt8 = 2
    /// Objects: two keys may be the same (their fingerprints matched), so lookups must follow the
    /// duplicate-key policy.
    static let mayRepeatKeys: UInt8 = 4

    /// Strings, keys and numbers: the offset of the first byte (after the quote) in the body.
    /// Arrays and objects: the index of the entry after their last one.
    var payload: UInt32
    /// Strings, keys and numbers: their length in bytes. Arrays: their elements; objects: their
    /// members.
    var length: UInt32
    var kind: Kind
    var flags: UInt8

    init(kind: Kind, payload: UInt32 = 0, length: UInt32 = 0, flags: UInt8 = 0) {
        self.kind = kind
        self.payload = payload
        self.length = length
        self.flags = flags
    }

    /// Objects and arrays (the first two kinds).
    @inline(__always)
    var isContainer: Bool { kind.rawValue <= Kind.array.rawValue }
}
