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
        let count = bytes.count
        var index = 0
        while index < count {
            // ASCII fast path, eight bytes at a time.
            while index + 8 <= count,
                  bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                index += 8
            }
            guard index < count else { break }
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var lower: UInt8 = 0x80
            var upper: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; upper = 0x9F
            case 0xF0: length = 4; lower = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; upper = 0x8F
            default: return index
            }
            guard index + length <= count else { return index }
            let second = bytes[index + 1]
            guard second >= lower && second <= upper else { return index }
            for offset in 2..<length {
                let continuation = bytes[index + offset]
                guard continuation >= 0x80 && continuation <= 0xBF else { return index }
            }
            index += length
        }
        return nil
    }
}
