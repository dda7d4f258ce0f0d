import Foundation

/// The `Double` nearest to a JSON number, read from its bytes without making a `String`.
enum JSONDoubleParsing {
    /// 10^0 … 10^22: the powers of ten a `Double` holds exactly.
    private static let exactPowersOfTen: [Double] = (0...22).map { exponent in
        var power = 1.0
        for _ in 0..<exponent { power *= 10 }
        return power
    }

    /// The nearest `Double` (correctly rounded) to the bytes of a number the parser has checked;
    /// infinite when it is too large.
    static func double(_ bytes: UnsafeBufferPointer<UInt8>) -> Double {
        var index = 0
        let negative = bytes[0] == UInt8(ascii: "-")
        if negative { index = 1 }
        var significand: UInt64 = 0
        var significantDigits = 0
        var exponent = 0
        var sawPoint = false
        var overflowDigits = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte &- UInt8(ascii: "0") < 10 {
                if significantDigits < 19 {
                    if significand != 0 || byte != UInt8(ascii: "0") || significantDigits > 0 {
                        significand = significand &* 10 &+ UInt64(byte &- UInt8(ascii: "0"))
                        if significand != 0 { significantDigits += 1 }
                    }
                    if sawPoint { exponent -= 1 }
                } else {
                    overflowDigits += 1
                    if !sawPoint { exponent += 1 }
                }
            } else if byte == UInt8(ascii: ".") {
                sawPoint = true
            } else {
                break
            }
            index += 1
        }
        exponent += writtenExponent(bytes, at: index)
        // Clinger's fast path: an exact significand and an exact power of ten, one rounding.
        if overflowDigits == 0, significand <= 1 << 53, abs(exponent) < exactPowersOfTen.count {
            let value = Double(significand)
            let scaled = exponent < 0 ? value / exactPowersOfTen[-exponent] : value * exactPowersOfTen[exponent]
            return negative ? -scaled : scaled
        }
        #if arch(x86_64) && !os(Windows)
        // The 17-digit decimals that printing a Double writes, with Float80 as the wider type.
        if overflowDigits == 0, abs(exponent) < exactExtendedPowersOfTen.count,
           let value = extendedPath(significand, exponent) {
            return negative ? -value : value
        }
        #endif
        return slowPath(bytes)
    }

    #if arch(x86_64) && !os(Windows)
    /// 10^0 … 10^27 as `Float80`: exact, since 5^27 fits its 64-bit significand.
    private static let exactExtendedPowersOfTen: [Float80] = (0...27).map { exponent in
        var power: Float80 = 1
        for _ in 0..<exponent { power *= 10 }
        return power
    }

    /// `significand` × 10^`exponent` (a significand of at most 19 digits, so exact in a `Float80`,
    /// and an exact power of ten) rounded once to `Float80`, then to `Double`; `nil` when rounding
    /// twice could differ from rounding once.
    ///
    /// The `Float80` result is within half of its last place of the exact value. Rounding it to
    /// 53 bits gives the correctly rounded `Double` unless it lands exactly on a midpoint between
    /// two `Double`s (its 11 bits beyond the `Double`'s are `1000_0000_000`): a midpoint lies on
    /// the `Float80` grid, so no midpoint can lie strictly between the exact value and a result
    /// that is not one. In that one case the C library decides.
    @inline(__always)
    private static func extendedPath(_ significand: UInt64, _ exponent: Int) -> Double? {
        let value = Float80(significand)
        let scaled = exponent < 0 ? value / exactExtendedPowersOfTen[-exponent] : value * exactExtendedPowersOfTen[exponent]
        guard scaled.significandBitPattern & 0x7FF != 0x400 else { return nil }
        return Double(scaled)
    }
    #endif

    /// The exponent written from `index` on (`e` or `E`, a sign, digits), saturated far beyond
    /// any `Double`; 0 when the number ends before `index`.
    @inline(__always)
    private static func writtenExponent(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Int {
        var index = start
        guard index < bytes.count else { return 0 }
        index += 1
        var negative = false
        if bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        var written = 0
        while index < bytes.count {
            written = min(written * 10 + Int(bytes[index] &- UInt8(ascii: "0")), 100_000)
            index += 1
        }
        return negative ? -written : written
    }

    /// The C library's correctly rounded conversion, from the digits and exponent written without
    /// a decimal point (so that no locale is involved).
    private static func slowPath(_ bytes: UnsafeBufferPointer<UInt8>) -> Double {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: bytes.count + 24) { buffer in
            var length = 0
            var exponentAdjustment = 0
            var sawPoint = false
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: ".") {
                    sawPoint = true
                } else if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                    break
                } else {
                    buffer[length] = CChar(bitPattern: byte)
                    length += 1
                    if sawPoint { exponentAdjustment -= 1 }
                }
                index += 1
            }
            let text = "e\(writtenExponent(bytes, at: index) + exponentAdjustment)"
            for byte in text.utf8 {
                buffer[length] = CChar(bitPattern: byte)
                length += 1
            }
            buffer[length] = 0
            return strtod(buffer.baseAddress!, nil)
        }
    }
}
