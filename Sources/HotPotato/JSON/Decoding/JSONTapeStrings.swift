import Foundation

/// Strings of a tape, made from the body's bytes when a decoder asks for them. The parser has
/// checked them already (escapes and UTF-8), so nothing here can fail.
enum JSONTapeStrings {
    /// The string whose written bytes (between the quotes) are `bytes`, with the flags of its tape
    /// entry.
    static func make(_ bytes: UnsafeBufferPointer<UInt8>, flags: UInt8) -> String {
        make(bytes, flags: flags, smallStrings: JSONSmallString.isUsable)
    }

    /// ``make(_:flags:)`` with ``JSONSmallString/isUsable`` read already.
    @inline(__always)
    static func make(_ bytes: UnsafeBufferPointer<UInt8>, flags: UInt8, smallStrings: Bool) -> String {
        guard flags & JSONTapeEntry.hasEscapes != 0 else {
            if bytes.count <= JSONSmallString.capacity, smallStrings {
                return JSONSmallString.make(bytes, isASCII: flags & JSONTapeEntry.hasNonASCII == 0)
            }
            return UTF8Validation.string(checked: bytes, isASCII: flags & JSONTapeEntry.hasNonASCII == 0)
        }
        // A decoded string is never longer than its written form. Decoded escapes are strict
        // UTF-8 too: the parser rejects unpaired surrogates.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count) { buffer in
            var wroteNonASCII = false
            let count = unescape(bytes, into: buffer.baseAddress!, wroteNonASCII: &wroteNonASCII)
            let isASCII = flags & JSONTapeEntry.hasNonASCII == 0 && !wroteNonASCII
            let decoded = UnsafeBufferPointer(start: buffer.baseAddress, count: count)
            if count <= JSONSmallString.capacity, smallStrings { return JSONSmallString.make(decoded, isASCII: isASCII) }
            return UTF8Validation.string(checked: decoded, isASCII: isASCII)
        }
    }

    /// Whether the written bytes `bytes` spell `key`.
    static func equals(_ bytes: UnsafeBufferPointer<UInt8>, hasEscapes: Bool, _ key: String) -> Bool {
        JSONMemberName.withBytes(key) { equals(bytes, hasEscapes: hasEscapes, $0) }
    }

    /// Whether the written bytes `bytes` spell the UTF-8 bytes `wanted`.
    static func equals(_ bytes: UnsafeBufferPointer<UInt8>, hasEscapes: Bool, _ wanted: UnsafeBufferPointer<UInt8>) -> Bool {
        guard hasEscapes else { return JSONMemberName.same(bytes, wanted) }
        // Escapes only shorten: a written form shorter than the key cannot spell it.
        guard bytes.count >= wanted.count else { return false }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count) { buffer in
            let count = unescape(bytes, into: buffer.baseAddress!)
            return JSONMemberName.same(UnsafeBufferPointer(start: buffer.baseAddress, count: count), wanted)
        }
    }

    /// Decodes the escapes of checked string bytes into `output`, which has room for
    /// `bytes.count` bytes; returns how many it wrote.
    static func unescape(_ bytes: UnsafeBufferPointer<UInt8>, into output: UnsafeMutablePointer<UInt8>) -> Int {
        var wroteNonASCII = false
        return unescape(bytes, into: output, wroteNonASCII: &wroteNonASCII)
    }

    /// Decodes the escapes of checked string bytes into `output`, which has room for
    /// `bytes.count` bytes; returns how many it wrote, and sets `wroteNonASCII` when an escape
    /// (`\uXXXX`) stood for a character beyond ASCII.
    ///
    /// Text between escapes is copied eight bytes at a time while it is looked through for the
    /// next backslash (escapes in text usually come close together, or in runs, where a call to
    /// `memchr` and one to `memmove` per escape cost more than the bytes between them); a run
    /// longer than 16 bytes is finished with `memchr` and one copy.
    static func unescape(
        _ bytes: UnsafeBufferPointer<UInt8>, into output: UnsafeMutablePointer<UInt8>, wroteNonASCII: inout Bool
    ) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        let count = bytes.count
        let raw = UnsafeRawPointer(base)
        let rawOutput = UnsafeMutableRawPointer(output)
        var index = 0
        var written = 0
        while index < count {
            // Up to the next backslash: a word at a time (written never passes index, so a word
            // stored at written stays within the output's count bytes), for up to two words;
            // longer runs cost less through the calls below (one word, or four, measured worse).
            var words = 0
            var found = false
            while words < 2, index + 8 <= count {
                let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                rawOutput.storeBytes(of: word, toByteOffset: written, as: UInt64.self)
                let zeroed = word ^ 0x5C5C_5C5C_5C5C_5C5C
                // The lowest byte flagged is exactly the first backslash (higher ones may be false).
                let flagged = (zeroed &- 0x0101_0101_0101_0101) & ~zeroed & 0x8080_8080_8080_8080
                if flagged != 0 {
                    let skip = flagged.trailingZeroBitCount >> 3
                    index += skip
                    written += skip
                    found = true
                    break
                }
                index += 8
                written += 8
                words += 1
            }
            if !found {
                if words == 2 {
                    // A long run: the rest of it in one search and one copy.
                    let next: Int
                    if let match = memchr(base + index, Int32(UInt8(ascii: "\\")), count - index) {
                        next = UnsafePointer<UInt8>(match.assumingMemoryBound(to: UInt8.self)) - base
                    } else {
                        next = count
                    }
                    (output + written).update(from: base + index, count: next - index)
                    written += next - index
                    index = next
                } else {
                    // Fewer than eight bytes left.
                    while index < count, base[index] != UInt8(ascii: "\\") {
                        output[written] = base[index]
                        written += 1
                        index += 1
                    }
                }
                if index >= count { break }
            }
            // base[index] is a backslash, followed by a complete escape (the parser checked).
            let escape = base[index + 1]
            if escape != UInt8(ascii: "u") {
                output[written] = simpleEscape(escape)
                written += 1
                index += 2
                continue
            }
            var scalar = hex4(raw + index + 2)
            index += 6
            if scalar & 0xFC00 == 0xD800 {
                // A high surrogate; the parser checked that a low one follows.
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (hex4(raw + index + 2) &- 0xDC00)
                index += 6
            }
            written += encode(scalar, into: output + written)
            if scalar >= 0x80 { wroteNonASCII = true }
        }
        return written
    }

    /// What a simple escape (`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`) stands for, by the
    /// byte after the backslash.
    @inline(__always)
    private static func simpleEscape(_ byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "b"): return 0x08
        case UInt8(ascii: "f"): return 0x0C
        case UInt8(ascii: "n"): return 0x0A
        case UInt8(ascii: "r"): return 0x0D
        case UInt8(ascii: "t"): return 0x09
        default: return byte
        }
    }

    /// The value of the four hexadecimal digits at `digits` (checked by the parser).
    @inline(__always)
    private static func hex4(_ digits: UnsafeRawPointer) -> UInt32 {
        // Digits, in the bytes of a little-endian word: '0'…'9' are 0x3N, 'a'…'f' 0x6N and
        // 'A'…'F' 0x4N, N from 1 for a and A: each is its low nibble, plus 9 for letters
        // (bit 6).
        let word = UInt32(littleEndian: digits.loadUnaligned(as: UInt32.self))
        let nibbles = (word & 0x0F0F_0F0F) &+ ((word >> 6) & 0x0101_0101) &* 9
        return (nibbles & 0xFF) << 12 | ((nibbles >> 8) & 0xFF) << 8 | ((nibbles >> 16) & 0xFF) << 4 | nibbles >> 24
    }

    /// Writes `scalar` as UTF-8 at `output`; returns how many bytes it took. A lone surrogate
    /// (which the parser rejects) is written as U+FFFD.
    @inline(__always)
    private static func encode(_ scalar: UInt32, into output: UnsafeMutablePointer<UInt8>) -> Int {
        switch scalar {
        case 0..<0x80:
            output[0] = UInt8(truncatingIfNeeded: scalar)
            return 1
        case 0x80..<0x800:
            output[0] = UInt8(truncatingIfNeeded: 0xC0 | scalar >> 6)
            output[1] = UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F)
            return 2
        case 0xD800..<0xE000:
            return encode(0xFFFD, into: output)
        case 0x800..<0x10000:
            output[0] = UInt8(truncatingIfNeeded: 0xE0 | scalar >> 12)
            output[1] = UInt8(truncatingIfNeeded: 0x80 | (scalar >> 6) & 0x3F)
            output[2] = UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F)
            return 3
        default:
            output[0] = UInt8(truncatingIfNeeded: 0xF0 | scalar >> 18)
            output[1] = UInt8(truncatingIfNeeded: 0x80 | (scalar >> 12) & 0x3F)
            output[2] = UInt8(truncatingIfNeeded: 0x80 | (scalar >> 6) & 0x3F)
            output[3] = UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F)
            return 4
        }
    }
}
