/// A JSON number reduced to sign × digits × 10^exponent with no leading or trailing zeros in
/// `digits`, so that equal values have equal forms (`1.50`, `15e-1` and `1.5` all become
/// `+15e-1`). Zero is always `+"" e0`.
struct NormalizedNumber: Hashable, Sendable {
    var isNegative: Bool
    /// Significant decimal digits, as ASCII bytes, without leading or trailing zeros.
    var digits: [UInt8]
    var exponent: Int

    init(_ value: Int64) {
        self.init(isNegative: value < 0, digits: Array(String(value.magnitude).utf8), exponent: 0)
    }

    /// Normalises text that follows the JSON number grammar.
    init(jsonText text: String) {
        var bytes = Array(text.utf8)[...]
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { bytes = bytes.dropFirst() }
        var digits: [UInt8] = []
        var exponent = 0
        var inFraction = false
        while let byte = bytes.first {
            if byte == UInt8(ascii: ".") {
                inFraction = true
            } else if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                break
            } else {
                digits.append(byte)
                if inFraction { exponent -= 1 }
            }
            bytes = bytes.dropFirst()
        }
        if !bytes.isEmpty {
            bytes = bytes.dropFirst()
            var exponentNegative = false
            if bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") {
                exponentNegative = bytes.first == UInt8(ascii: "-")
                bytes = bytes.dropFirst()
            }
            // Saturate: exponents past a billion are beyond any meaningful comparison.
            var written = 0
            for byte in bytes {
                written = min(written * 10 + Int(byte - UInt8(ascii: "0")), 1_000_000_000)
            }
            exponent += exponentNegative ? -written : written
        }
        self.init(isNegative: negative, digits: digits, exponent: exponent)
    }

    private init(isNegative: Bool, digits: [UInt8], exponent: Int) {
        var digits = digits[...]
        var exponent = exponent
        while digits.first == UInt8(ascii: "0") { digits = digits.dropFirst() }
        while digits.last == UInt8(ascii: "0") {
            digits = digits.dropLast()
            exponent += 1
        }
        if digits.isEmpty {
            self.isNegative = false
            self.digits = []
            self.exponent = 0
        } else {
            self.isNegative = isNegative
            self.digits = Array(digits)
            self.exponent = exponent
        }
    }

    /// The exact value as an `Int64`, or `nil` when it is not an integer or does not fit.
    var int64Value: Int64? {
        guard exponent >= 0, digits.count + exponent <= 19 else { return nil }
        var magnitude: UInt64 = 0
        for digit in digits {
            magnitude = magnitude * 10 + UInt64(digit - UInt8(ascii: "0"))
        }
        for _ in 0..<exponent {
            let (product, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            if overflow { return nil }
            magnitude = product
        }
        if isNegative {
            return magnitude <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- magnitude) : nil
        }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }
}
