import Foundation

/// Strict UTF-8 validation (Unicode table 3-7: no overlong forms, no surrogates, nothing past
/// U+10FFFF) that reports where the first invalid sequence starts.
enum UTF8Validation {
    /// The offset of the first byte of the first invalid or truncated sequence, or `nil` when
    /// `data` is valid UTF-8.
    static func firstInvalidOffset(in data: Data) -> Int? {
        data.withUnsafeBytes { firstInvalidOffset(in: $0) }
    }

    static func firstInvalidOffset(in bytes: UnsafeRawBufferPointer) -> Int? {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        let count = bytes.count
        var index = 0
        while index < count {
            // ASCII fast path, eight bytes at a time.
            while index + 8 <= count,
                  UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                index += 8
            }
            guard index < count else { break }
            let lead = base[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            // One branch per sequence length; the continuation bytes are checked together, and
            // the lead's own limits (no overlong forms, no surrogates, nothing past U+10FFFF)
            // bound the second byte.
            if lead < 0xE0 {
                guard lead >= 0xC2, index + 1 < count, base[index + 1] & 0xC0 == 0x80 else { return index }
                index += 2
            } else if lead < 0xF0 {
                guard index + 2 < count else { return index }
                let second = base[index + 1]
                guard (second & 0xC0) | ((base[index + 2] & 0xC0) >> 4) == 0x88 else { return index }
                if lead == 0xE0 && second < 0xA0 || lead == 0xED && second > 0x9F { return index }
                index += 3
            } else {
                guard lead <= 0xF4, index + 3 < count else { return index }
                let second = base[index + 1]
                guard (second & 0xC0) | ((base[index + 2] & 0xC0) >> 2) | ((base[index + 3] & 0xC0) >> 4) == 0xA8 else {
                    return index
                }
                if lead == 0xF0 && second < 0x90 || lead == 0xF4 && second > 0x8F { return index }
                index += 4
            }
        }
        return nil
    }

    /// The string of `bytes`, already checked as strict UTF-8 with this checker (`isASCII` when
    /// none is above 0x7F), made without the standard library checking them again where it
    /// offers that (Swift 6.2's `UTF8Span`; on Apple platforms from the 26 releases). Decoding a
    /// string-heavy document spent about a tenth of its time in that second check.
    @inline(__always)
    static func string(checked bytes: UnsafeBufferPointer<UInt8>, isASCII: Bool) -> String {
        #if compiler(>=6.2)
        if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
            // Debug builds (the tests) hold the caller to what it promises.
            assert(String(validating: bytes, as: UTF8.self) != nil, "unchecked bytes that are not UTF-8")
            assert(isASCII == bytes.allSatisfy { $0 < 0x80 }, "a string's ASCII flag is wrong")
            return String(copying: UTF8Span(unchecked: bytes.span, isKnownASCII: isASCII))
        }
        #endif
        return String(decoding: bytes, as: UTF8.self)
    }
}
