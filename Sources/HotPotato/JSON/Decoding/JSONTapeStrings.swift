import Foundation

/// Strings of a tape, made from the body's bytes when a decoder asks for them. The parser has
/// checked them already (escapes and UTF-8), so nothing here can fail.
enum JSONTapeStrings {
    /// The string whose written bytes (between the quotes) are `bytes`, with the flags of its tape
    /// entry.
    static func make(_ bytes: UnsafeBufferPointer<UInt8>, flags: UInt8) -> String {
        guard flags & JSONTapeEntry.hasEscapes != 0 else {
            return UTF8Validation.string(checked: bytes, isASCII: flags & JSONTapeEntry.hasNonASCII == 0)
        }
        // A decoded string is never longer than its written form. Decoded escapes are strict
        // UTF-8 too: the parser rejects unpaired surrogates.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count) { buffer in
            let decoded = UnsafeBufferPointer(start: buffer.baseAddress, count: unescape(bytes, into: buffer.baseAddress!))
            let isASCII = flags & JSONTapeEntry.hasNonASCII == 0 && !decoded.contains { $0 >= 0x80 }
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
    /// `bytes.count` bytes; returns how many it wrote. Runs without escapes are copied whole.
    static func unescape(_ bytes: UnsafeBufferPointer<UInt8>, into output: UnsafeMutablePointer<UInt8>) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        let count = bytes.count
        var index = 0
        var written = 0
        while index < count {
            guard let found = memchr(base + index, Int32(UInt8(ascii: "\\")), count - index) else {
                (output + written).update(from: base + index, count: count - index)
                return written + count - index
            }
            let backslash = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - base
            (output + written).update(from: base + index, count: backslash - index)
            written += backslash - index
            let escape = base[backslash + 1]
            index = backslash + 2
            switch escape {
            case UInt8(ascii: "b"): output[written] = 0x08
            case UInt8(ascii: "f"): output[written] = 0x0C
            case UInt8(ascii: "n"): output[written] = 0x0A
            case UInt8(ascii: "r"): output[written] = 0x0D
            case UInt8(ascii: "t"): output[written] = 0x09
            case UInt8(ascii: "u"):
                var scalar = hex(base, at: backslash + 2)
                index = backslash + 6
                if (0xD800...0xDBFF).contains(scalar) {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (hex(base, at: index + 2) - 0xDC00)
                    index += 6
                }
                for unit in UTF8.encode(Unicode.Scalar(scalar) ?? "\u{FFFD}")! {
                    output[written] = unit
                    written += 1
                }
                continue
            default: output[written] = escape
            }
            written += 1
        }
        return written
    }

    private static func hex(_ bytes: UnsafePointer<UInt8>, at start: Int) -> UInt32 {
        var value: UInt32 = 0
        for offset in 0..<4 {
            let digit = bytes[start + offset]
            let nibble: UInt8
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = digit - UInt8(ascii: "a") + 10
            default: nibble = digit - UInt8(ascii: "A") + 10
            }
            value = value << 4 | UInt32(nibble)
        }
        return value
    }
}
