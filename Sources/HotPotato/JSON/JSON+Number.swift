import Foundation

extension JSON {
    /// A JSON number, kept exactly as the document wrote it.
    ///
    /// JSON numbers have any number of digits; Swift's numeric types do not. A `Number` keeps the
    /// digits, so `12345678901234567890123` and `0.1000000000000000055511151231257827` survive
    /// a round trip unchanged, and converts on request:
    /// - ``int64Value`` / ``intValue``: the exact integer, or `nil` when the value is not an
    ///   integer or does not fit (never rounded or truncated);
    /// - ``doubleValue``: the nearest `Double` (this one may round);
    /// - ``decimalValue``: a Foundation `Decimal` (38 significant digits).
    ///
    /// Two numbers are equal when their values are equal: `1`, `1.0` and `10e-1` compare equal and
    /// hash alike.
    public struct Number: Sendable {
        enum Storage: Sendable {
            case integer(Int64)
            /// `significand × 10^-fractionDigits`, written in the document as plain digits with a
            /// decimal point and `fractionDigits` digits after it (`-12.50`: `-1250`, 2). Kept
            /// inline, so that the most common non-integers cost no allocation.
            case decimal(significand: Int64, fractionDigits: UInt8)
            /// Text known to follow the JSON number grammar.
            case text(String)
        }

        let storage: Storage

        /// Creates a number from an integer.
        public init(_ value: Int64) {
            storage = .integer(value)
        }

        /// Creates a number from an integer.
        public init(_ value: Int) {
            storage = .integer(Int64(value))
        }

        /// Creates a number from a `Double`, or returns `nil` for infinity and NaN, which JSON
        /// cannot represent.
        public init?(_ value: Double) {
            guard value.isFinite else { return nil }
            storage = .text(Self.text(for: value))
        }

        /// Creates a number from its JSON text, such as `"-12.5e3"`, or returns `nil` when the
        /// text is not a JSON number (RFC 8259: no leading `+`, no leading zeros, no bare `.`).
        public init?(text: String) {
            // Checked by the parser, the one home of the number grammar: the text must be one JSON
            // number and nothing around it (the parser would skip whitespace).
            guard let first = text.utf8.first, let last = text.utf8.last, ![0x20, 0x09, 0x0A, 0x0D].contains(first),
                  ![0x20, 0x09, 0x0A, 0x0D].contains(last), case .number? = try? JSON(parsing: text) else { return nil }
            storage = .text(text)
        }

        /// Creates a number from text already checked against the JSON number grammar.
        init(validatedText text: String) {
            storage = .text(text)
        }

        /// Creates a number from the bytes of a number the parser has already checked, stored as
        /// the parser stores it: an `Int64`, a plain decimal inline, or else its text.
        init(checkedJSON bytes: UnsafeBufferPointer<UInt8>) {
            var index = 0
            let negative = bytes[0] == UInt8(ascii: "-")
            if negative { index = 1 }
            var magnitude: UInt64 = 0
            var digits = 0
            var fractionDigits = 0
            var plain = true
            var inFraction = false
            while index < bytes.count {
                let byte = bytes[index]
                if byte &- UInt8(ascii: "0") < 10 {
                    if digits + fractionDigits < 19 { magnitude = magnitude &* 10 &+ UInt64(byte &- UInt8(ascii: "0")) }
                    if inFraction { fractionDigits += 1 } else if magnitude != 0 || digits != 0 || byte != UInt8(ascii: "0") { digits += 1 }
                } else if byte == UInt8(ascii: ".") {
                    inFraction = true
                } else {
                    plain = false
                    break
                }
                index += 1
            }
            if plain && !inFraction && digits <= 18 {
                self.init(negative ? -Int64(magnitude) : Int64(magnitude))
            } else if plain && inFraction && digits + fractionDigits <= 18 && (magnitude != 0 || !negative) {
                self.init(significand: negative ? -Int64(magnitude) : Int64(magnitude), fractionDigits: UInt8(fractionDigits))
            } else {
                self.init(validatedText: String(decoding: bytes, as: UTF8.self))
            }
        }

        /// Creates the number written `significand` with a decimal point before its last
        /// `fractionDigits` digits (at least one). Not for negative zero, whose sign the
        /// significand cannot keep.
        init(significand: Int64, fractionDigits: UInt8) {
            storage = .decimal(significand: significand, fractionDigits: fractionDigits)
        }

        /// The number as JSON text: as written in the document, or the shortest text for a number
        /// made from a Swift value.
        public var text: String {
            switch storage {
            case .integer(let value): return String(value)
            case .decimal(let significand, let fractionDigits):
                return Self.text(significand: significand, fractionDigits: Int(fractionDigits))
            case .text(let text): return text
            }
        }

        /// The exact value as an `Int64`, or `nil` when it is not an integer or does not fit.
        public var int64Value: Int64? {
            switch storage {
            case .integer(let value): return value
            case .decimal, .text: return normalized.int64Value
            }
        }

        /// The exact value as an `Int`, or `nil` when it is not an integer or does not fit.
        public var intValue: Int? {
            int64Value.flatMap { Int(exactly: $0) }
        }

        /// The nearest `Double`. Very large magnitudes give infinity.
        public var doubleValue: Double {
            switch storage {
            case .integer(let value): return Double(value)
            case .decimal(let significand, let fractionDigits):
                // Both operands exact, so the one division rounds correctly (Clinger's fast path).
                if significand.magnitude <= 1 << 53, Int(fractionDigits) < Self.exactPowersOfTen.count {
                    return Double(significand) / Self.exactPowersOfTen[Int(fractionDigits)]
                }
                return Self.double(significand: significand, fractionDigits: Int(fractionDigits))
            case .text(let text): return Double(text) ?? .nan
            }
        }

        /// The value as a Foundation `Decimal`, or `nil` when it is beyond `Decimal`'s range.
        public var decimalValue: Decimal? {
            switch storage {
            case .integer(let value): return Decimal(value)
            case .decimal, .text: return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
            }
        }

        /// Whether the value is an integer (`3`, `3.0` and `3e2` are; `3.5` is not).
        public var isInteger: Bool {
            switch storage {
            case .integer: return true
            case .decimal, .text: return normalized.exponent >= 0
            }
        }

        var normalized: NormalizedNumber {
            switch storage {
            case .integer(let value): return NormalizedNumber(value)
            case .decimal, .text: return NormalizedNumber(jsonText: text)
            }
        }

        /// 10^0 … 10^22: the powers of ten a `Double` holds exactly.
        static let exactPowersOfTen: [Double] = (0...22).map { exponent in
            var power = 1.0
            for _ in 0..<exponent { power *= 10 }
            return power
        }

        /// The `Double` nearest to `significand × 10^-fractionDigits`, correctly rounded by the C
        /// library from `<digits>e-<fractionDigits>`: no decimal point, so no locale is involved,
        /// and no string is allocated.
        private static func double(significand: Int64, fractionDigits: Int) -> Double {
            withUnsafeTemporaryAllocation(of: CChar.self, capacity: 32) { buffer in
                var magnitude = significand.magnitude
                var position = 31
                buffer[position] = 0
                var exponent = fractionDigits
                repeat {
                    position -= 1
                    buffer[position] = CChar(UInt8(ascii: "0") + UInt8(exponent % 10))
                    exponent /= 10
                } while exponent > 0
                position -= 2
                buffer[position] = CChar(UInt8(ascii: "e"))
                buffer[position + 1] = CChar(UInt8(ascii: "-"))
                repeat {
                    position -= 1
                    buffer[position] = CChar(UInt8(ascii: "0") + UInt8(magnitude % 10))
                    magnitude /= 10
                } while magnitude > 0
                if significand < 0 {
                    position -= 1
                    buffer[position] = CChar(UInt8(ascii: "-"))
                }
                return strtod(buffer.baseAddress! + position, nil)
            }
        }

        /// `significand` written with a decimal point before its last `fractionDigits` digits.
        private static func text(significand: Int64, fractionDigits: Int) -> String {
            var digits = String(significand.magnitude)
            if digits.utf8.count <= fractionDigits {
                digits = String(repeating: "0", count: fractionDigits + 1 - digits.utf8.count) + digits
            }
            let point = digits.index(digits.endIndex, offsetBy: -fractionDigits)
            return (significand < 0 ? "-" : "") + digits[..<point] + "." + digits[point...]
        }

        private static func text(for value: Double) -> String {
            if value == value.rounded(), abs(value) < 1e15 {
                return String(Int64(value))
            }
            return "\(value)"
        }
    }
}

extension JSON.Number: Hashable {
    /// Whether two numbers have the same value, however they are written.
    public static func == (lhs: JSON.Number, rhs: JSON.Number) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case let (.integer(left), .integer(right)):
            return left == right
        case let (.decimal(left, leftDigits), .decimal(right, rightDigits)) where leftDigits == rightDigits:
            return left == right
        default:
            break
        }
        return lhs.normalized == rhs.normalized
    }

    /// Hashes the value, so that equal numbers hash alike.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(normalized)
    }
}

extension JSON.Number: CustomStringConvertible {
    /// The number as JSON text; see ``text``.
    public var description: String { text }
}

extension JSON.Number: ExpressibleByIntegerLiteral {
    /// Creates a number from an integer literal.
    public init(integerLiteral value: Int64) {
        self.init(value)
    }
}

extension JSON.Number: ExpressibleByFloatLiteral {
    /// Creates a number from a floating-point literal.
    public init(floatLiteral value: Double) {
        self = JSON.Number(value) ?? JSON.Number(0)
    }
}
