/// Strings of up to 15 UTF-8 bytes made directly in the standard library's small-string form,
/// without the calls through `String(copying:)` that make the same value (about 100 instructions
/// each, for strings that are most of the values of a typical document: names, tags, codes).
///
/// On 64-bit platforms a small `String` is its bytes, in order, in its two words, with the count
/// and two flags in the top byte of the second: `0xE0 | count` when every byte is ASCII, `0xA0 |
/// count` otherwise, and zero in every byte past the count (two small strings are equal when
/// their bits are). That layout is part of the standard library's ABI on Apple platforms and the
/// same on Linux; still, ``isUsable`` checks it once against strings the standard library makes —
/// comparing bits only: no string is made this way before the bits are known to be the standard
/// library's own — and only then is it used. Otherwise, and on other platforms, strings are made
/// the ordinary way.
///
/// What it saves: with the other decoding changes of the same release, strings and mixed Codable
/// decoding took 10.7 % and 9.9 % fewer instructions (CHANGELOG, "Codable decoding").

enum JSONSmallString {
    /// The most bytes a small string holds.
    static let capacity = 15

    /// Whether strings made here are the standard library's own, bit for bit: checked once, for
    /// every count, with ASCII and non-ASCII bytes.
    static let isUsable: Bool = {
        #if (arch(x86_64) || arch(arm64)) && _endian(little)
        guard MemoryLayout<String>.size == 16 else { return false }
        let samples = ["", "a", "ab", "abc", "abcd", "é", "日本", "Zoë", "0123456789abcde", "ünïcödé", "🥔🍟 and", "tags"]
            + (0...capacity).map { String(repeating: "x", count: $0) }
            + (0...7).map { String(repeating: "é", count: $0) + (($0 % 2 == 0) ? "" : "z") }
        for sample in samples where sample.utf8.count <= capacity {
            var native = sample
            native.makeContiguousUTF8()
            let expected = unsafeBitCast(native, to: (UInt64, UInt64).self)
            let bytes = Array(sample.utf8)
            // The bits `make` would give, compared without making a string of them.
            let made = bytes.withUnsafeBufferPointer { smallStringBits($0, isASCII: bytes.allSatisfy { $0 < 0x80 }) }
            guard made == expected else { return false }
        }
        // Strings too long to be small must not look small to ``bits(of:)``.
        var native = String(repeating: "long", count: 8)
        native.makeContiguousUTF8()
        for large in ["a literal longer than fifteen bytes", native] where unsafeBitCast(large, to: (UInt64, UInt64).self).1 & (1 << 61) != 0 {
            return false
        }
        for sample in samples where sample.utf8.count <= capacity {
            guard let bits = smallBits(of: sample), bits.count == sample.utf8.count,
                  Array(sample.utf8).withUnsafeBufferPointer({ words($0) }) == bits.words else { return false }
        }
        return true
        #else
        return false
        #endif
    }()

    /// The string of the UTF-8 bytes `bytes` (at most ``capacity``, valid UTF-8), in the small
    /// form; `isASCII` says whether every byte is below 0x80. Only when ``isUsable``.
    @inline(__always)
    static func make(_ bytes: UnsafeBufferPointer<UInt8>, isASCII: Bool) -> String {
        // Debug builds (the tests) hold the caller to what it promises.
        assert(String(validating: bytes, as: UTF8.self) != nil, "unchecked bytes that are not UTF-8")
        assert(isASCII == bytes.allSatisfy { $0 < 0x80 }, "a string's ASCII flag is wrong")
        return unsafeBitCast(smallStringBits(bytes, isASCII: isASCII), to: String.self)
    }

    /// The two words of the small string of `bytes`: ``words(_:)`` and the count and flags in the
    /// top byte.
    @inline(__always)
    private static func smallStringBits(_ bytes: UnsafeBufferPointer<UInt8>, isASCII: Bool) -> (UInt64, UInt64) {
        var (low, high) = words(bytes)
        high |= ((isASCII ? 0xE0 : 0xA0) | UInt64(bytes.count)) << 56
        return (low, high)
    }

    /// The bytes `bytes` (at most ``capacity``) in order in two little-endian words, zero past
    /// the count: a small string's bits without its top byte. Loads only within the bytes,
    /// overlapping where the count is not a word's.
    @inline(__always)
    static func words(_ bytes: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64) {
        let count = bytes.count
        guard count > 0, let start = bytes.baseAddress else { return (0, 0) }
        let raw = UnsafeRawPointer(start)
        if count >= 8 {
            let low = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
            let high = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)) >> UInt64((16 - count) * 8)
            return (low, high)
        }
        if count >= 4 {
            let first = UInt64(UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self)))
            let last = UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)))
            return (first | last << UInt64((count - 4) * 8), 0)
        }
        return (UInt64(start[0]) | UInt64(start[count / 2]) << UInt64(count / 2 * 8) | UInt64(start[count - 1]) << UInt64((count - 1) * 8), 0)
    }

    /// `string`'s bits when it is a small string (and ``isUsable``): its bytes as ``words(_:)``
    /// gives them, and its count in the top byte of the second word; `nil` otherwise.
    @inline(__always)
    static func bits(of string: String) -> (words: (UInt64, UInt64), count: Int)? {
        guard isUsable else { return nil }
        return smallBits(of: string)
    }

    /// ``bits(of:)`` for a caller that has read ``isUsable`` already (and keeps it, since reading
    /// a lazily made global costs a call each time).
    @inline(__always)
    static func smallBits(of string: String) -> (words: (UInt64, UInt64), count: Int)? {
        let bits = unsafeBitCast(string, to: (UInt64, UInt64).self)
        // The small-string flag (bit 61); no other form of string sets it.
        guard bits.1 & (1 << 61) != 0 else { return nil }
        return ((bits.0, bits.1 & 0x00FF_FFFF_FFFF_FFFF), Int(truncatingIfNeeded: bits.1 >> 56) & 0xF)
    }
}
