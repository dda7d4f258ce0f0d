/// Byte-level ASCII helpers for the protocol tokens HotPotato parses (header names, media types,
/// charset labels). Non-ASCII bytes compare as themselves.
enum ASCII {
    @inline(__always)
    static func lowercased(_ byte: UInt8) -> UInt8 {
        (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
    }

    static func caseInsensitiveEquals(_ lhs: String, _ rhs: String) -> Bool {
        // Case folding keeps each byte's length: texts of different lengths never match.
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        // Header names are native strings: compare their bytes in place.
        if let result = lhs.utf8.withContiguousStorageIfAvailable({ left in
            rhs.utf8.withContiguousStorageIfAvailable { right in
                for index in 0..<left.count where lowercased(left[index]) != lowercased(right[index]) {
                    return false
                }
                return true
            }
        }), let result {
            return result
        }
        var left = lhs.utf8.makeIterator()
        var right = rhs.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil):
                return true
            case let (l?, r?):
                if lowercased(l) != lowercased(r) { return false }
            default:
                return false
            }
        }
    }

    /// `string` with ASCII letters lowercased; other characters are kept.
    static func lowercased(_ string: String) -> String {
        if !string.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) { return string }
        return String(decoding: string.utf8.map(lowercased), as: UTF8.self)
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09
    }

    /// `text` without the spaces and tabs around it (RFC 9110's optional whitespace).
    static func trimmingWhitespace(_ text: Substring) -> Substring {
        let utf8 = text.utf8
        guard let start = utf8.firstIndex(where: { !isWhitespace($0) }),
              let last = utf8.lastIndex(where: { !isWhitespace($0) }) else { return text[text.endIndex...] }
        return Substring(utf8[start...last])
    }

    /// Whether `byte` may appear in an RFC 9110 token (`tchar`).
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// A non-negative decimal number of ASCII digits only (no sign, space or exponent), or `nil`
    /// when `text` is anything else or does not fit in `Int64`. For the sizes servers send.
    static func decimalInt64<Text: StringProtocol>(_ text: Text) -> Int64? {
        guard !text.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in text.utf8 {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(Int64(byte - 0x30))
            guard !overflow, !carry else { return nil }
            value = sum
        }
        return value
    }
}
