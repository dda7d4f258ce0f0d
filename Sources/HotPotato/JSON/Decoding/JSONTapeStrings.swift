import Foundation

/// Strings of a tape, made from the body's bytes when a decoder asks for them. The parser has
/// checked them already (escapes and UTF-8), so nothing here can fail.
enum JSONTapeStrings {
    /// The string whose written bytes (between the quotes) are `bytes`.
    static func make(_ bytes: UnsafeBufferPointer<UInt8>, hasEscapes: Bool, scratch: inout [UInt8]) -> String {
        guard hasEscapes else { return String(decoding: bytes, as: UTF8.self) }
        unescape(bytes, into: &scratch)
        return String(decoding: scratch, as: UTF8.self)
    }

    /// Whether the written bytes `bytes` spell `key`.
    static func equals(_ bytes: UnsafeBufferPointer<UInt8>, hasEscapes: Bool, _ key: String, scratch: inout [UInt8]) -> Bool {
        var key = key
        return key.withUTF8 { wanted in
            if hasEscapes {
                unescape(bytes, into: &scratch)
                return scratch.withUnsafeBufferPointer { same($0, wanted) }
            }
            return same(bytes, wanted)
        }
    }

    private static func same(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Bool {
        guard left.count == right.count else { return false }
        guard let first = left.baseAddress, let second = right.baseAddress else { return true }
        return memcmp(first, second, left.count) == 0
    }

    /// Decodes the escapes of checked string bytes into `output`.
    static func unescape(_ bytes: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) {
        output.removeAll(keepingCapacity: true)
        output.reserveCapacity(bytes.count)
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "\\") else {
                output.append(byte)
                index += 1
                continue
            }
            let escape = bytes[index + 1]
            switch escape {
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex(bytes, at: index + 2)
                index += 6
                if (0xD800...0xDBFF).contains(scalar) {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (hex(bytes, at: index + 2) - 0xDC00)
                    index += 6
                }
                output.append(contentsOf: UTF8.encode(Unicode.Scalar(scalar) ?? "\u{FFFD}")!)
                continue
            default: output.append(escape)
            }
            index += 2
        }
    }

    private static func hex(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> UInt32 {
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
