import CJSONScan
import Foundation

/// What scanning a string found out about it.
struct StringFlags {
    var hasEscape = false
    var hasNonASCII = false
    /// Some bytes were not shown to be valid UTF-8 by the scan (see `hp_json_scan_string`): they
    /// are checked when the string is made or checked, which also finds the first bad byte.
    var needsUTF8Check = false
    /// Some escape was not checked by the scan: the string's escapes are checked when it is
    /// (``IncrementalJSONParser/checkString(_:from:to:flags:origin:)``), which also finds the first
    /// bad one.
    var needsEscapeCheck = false
    /// The bytes ran out right after a backslash.
    var endsInEscape = false

    /// The flags a tape entry keeps.
    var tapeFlags: UInt8 {
        (hasEscape ? JSONTapeEntry.hasEscapes : 0) | (hasNonASCII ? JSONTapeEntry.hasNonASCII : 0)
    }
}

extension IncrementalJSONParser {
    // MARK: - Strings

    /// Finds the closing quote of a string whose contents start at `start`. Returns its index, or
    /// `nil` when the bytes end first. Rejects unescaped control characters. Valid escapes are
    /// checked on the way, and so, where the CPU has a vector unit, is UTF-8; `flags` says what
    /// still needs checking.
    mutating func scanString(
        _ base: UnsafePointer<UInt8>, from start: Int, end: Int, origin: Int64, flags: inout StringFlags
    ) throws -> Int? {
        var index = start
        while true {
            var found: UInt32 = 0
            index += hp_json_scan_string(base + index, end - index, &found)
            guard index < end else { return nil }
            if found & HP_JSON_SCAN_NON_ASCII != 0 { flags.hasNonASCII = true }
            if found & HP_JSON_SCAN_UNCHECKED != 0 { flags.needsUTF8Check = true }
            if found & HP_JSON_SCAN_ESCAPED != 0 { flags.hasEscape = true }
            let byte = base[index]
            switch byte {
            case UInt8(ascii: "\""):
                return index
            case UInt8(ascii: "\\"):
                // An escape the scan left alone: invalid, or cut by the end of the bytes.
                flags.hasEscape = true
                flags.needsEscapeCheck = true
                guard index + 1 < end else {
                    flags.endsInEscape = true
                    return nil
                }
                index += 2
            default:
                throw syntaxError("Unescaped control character \(Self.describe(byte)) in a string", at: origin + Int64(index))
            }
        }
    }

    /// The string between `start` and `end` (exclusive), escapes decoded, UTF-8 checked. A string
    /// with escapes is decoded into ``scratch``, where its bytes stay until the next one.
    mutating func makeString(_ base: UnsafePointer<UInt8>, from start: Int, to end: Int, flags: StringFlags, origin: Int64) throws -> String {
        // Checked once, here (as ``checkString(_:from:to:flags:origin:)`` does: escapes first,
        // then UTF-8); the string is made without the standard library checking it again.
        // Escapes are ASCII and decode to whole characters (unpaired surrogates are rejected), so
        // checking the written bytes checks the decoded ones.
        if !flags.hasEscape {
            if flags.needsUTF8Check {
                try validate(UnsafeRawBufferPointer(start: base + start, count: end - start), origin: origin + Int64(start))
            }
            return UTF8Validation.string(checked: UnsafeBufferPointer(start: base + start, count: end - start), isASCII: !flags.hasNonASCII)
        }
        try unescape(base, from: start, to: end, origin: origin)
        if flags.needsUTF8Check {
            try validate(UnsafeRawBufferPointer(start: base + start, count: end - start), origin: origin + Int64(start))
        }
        return scratch.withUnsafeBufferPointer { decoded in
            UTF8Validation.string(checked: decoded, isASCII: !flags.hasNonASCII && !decoded.contains { $0 >= 0x80 })
        }
    }

    /// Checks the string between `start` and `end` as ``makeString(_:from:to:flags:origin:)``
    /// would, without making it.
    mutating func checkString(_ base: UnsafePointer<UInt8>, from start: Int, to end: Int, flags: StringFlags, origin: Int64) throws {
        if !flags.hasEscape {
            if flags.needsUTF8Check {
                try validate(UnsafeRawBufferPointer(start: base + start, count: end - start), origin: origin + Int64(start))
            }
            return
        }
        if flags.needsEscapeCheck {
            try checkEscapes(base, from: start, to: end, origin: origin)
        }
        if flags.needsUTF8Check {
            try validate(UnsafeRawBufferPointer(start: base + start, count: end - start), origin: origin + Int64(start))
        }
    }

    /// Checks the escapes of the string between `start` and `end` as ``unescape(_:from:to:origin:)``
    /// would, without writing anything.
    private mutating func checkEscapes(_ base: UnsafePointer<UInt8>, from start: Int, to end: Int, origin: Int64) throws {
        var index = start
        while index < end {
            guard let found = memchr(base + index, Int32(UInt8(ascii: "\\")), end - index) else { return }
            let backslash = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - base
            switch base[backslash + 1] {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                 UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                index = backslash + 2
            case UInt8(ascii: "u"):
                index = try unicodeEscape(base, at: backslash, end: end, origin: origin).next
            default:
                throw syntaxError("Invalid escape \\\(Self.describe(base[backslash + 1])) in a string", at: origin + Int64(backslash))
            }
        }
    }

    /// Decodes the escapes of the string between `start` and `end` into ``scratch``.
    private mutating func unescape(_ base: UnsafePointer<UInt8>, from start: Int, to end: Int, origin: Int64) throws {
        scratch.removeAll(keepingCapacity: true)
        scratch.reserveCapacity(end - start)
        var index = start
        while index < end {
            // Copy the run up to the next backslash in one go.
            let run = UnsafeRawPointer(base + index)
            guard let found = memchr(run, Int32(UInt8(ascii: "\\")), end - index) else {
                scratch.append(contentsOf: UnsafeBufferPointer(start: base + index, count: end - index))
                return
            }
            let backslash = index + (UnsafeRawPointer(found) - run)
            scratch.append(contentsOf: UnsafeBufferPointer(start: base + index, count: backslash - index))
            let escape = base[backslash + 1]
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(escape)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "u"):
                let escape = try unicodeEscape(base, at: backslash, end: end, origin: origin)
                scratch.append(contentsOf: UTF8.encode(escape.scalar)!)
                index = escape.next
                continue
            default:
                throw syntaxError("Invalid escape \\\(Self.describe(escape)) in a string", at: origin + Int64(backslash))
            }
            index = backslash + 2
        }
    }

    /// Reads `\uXXXX` (and the low half of a surrogate pair) at `index`: the scalar, and the index
    /// after it.
    private mutating func unicodeEscape(
        _ base: UnsafePointer<UInt8>, at index: Int, end: Int, origin: Int64
    ) throws -> (scalar: Unicode.Scalar, next: Int) {
        func hex(at position: Int) throws -> UInt32 {
            guard position + 6 <= end, base[position + 1] == UInt8(ascii: "u") else {
                throw syntaxError("Invalid \\u escape in a string", at: origin + Int64(position))
            }
            var value: UInt32 = 0
            for offset in 2..<6 {
                let digit = base[position + offset]
                let nibble: UInt32
                switch digit {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = UInt32(digit - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = UInt32(digit - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = UInt32(digit - UInt8(ascii: "A") + 10)
                default: throw syntaxError("Invalid hexadecimal digit in a \\u escape", at: origin + Int64(position + offset))
                }
                value = value << 4 | nibble
            }
            return value
        }
        var scalar = try hex(at: index)
        var next = index + 6
        if (0xD800...0xDBFF).contains(scalar) {
            guard next < end, base[next] == UInt8(ascii: "\\"), case let low = try hex(at: next), (0xDC00...0xDFFF).contains(low) else {
                throw syntaxError("Unpaired UTF-16 surrogate in a \\u escape", at: origin + Int64(index))
            }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            next += 6
        } else if (0xDC00...0xDFFF).contains(scalar) {
            throw syntaxError("Unpaired UTF-16 surrogate in a \\u escape", at: origin + Int64(index))
        }
        guard let unicode = Unicode.Scalar(scalar) else {
            throw syntaxError("Invalid \\u escape in a string", at: origin + Int64(index))
        }
        return (unicode, next)
    }

    /// Fails at the first byte that is not strict UTF-8.
    private mutating func validate(_ bytes: UnsafeRawBufferPointer, origin: Int64) throws {
        if let offset = UTF8Validation.firstInvalidOffset(in: bytes) {
            throw syntaxError("Invalid UTF-8 in a string", at: origin + Int64(offset))
        }
    }

    // MARK: - Numbers

    /// Scans a number at `start`. Returns it and the index after it, or `nil` when the bytes end
    /// before it does (and `final` is false). With `build` false the number is only checked, and
    /// the value returned is zero (the tape keeps where a number is, not its value).
    mutating func scanNumber(
        _ base: UnsafePointer<UInt8>, from start: Int, end: Int, origin: Int64, final: Bool, build: Bool = true
    ) throws -> (value: JSON.Number, end: Int)? {
        @inline(__always) func isDigit(_ index: Int) -> Bool {
            index < end && base[index] &- UInt8(ascii: "0") < 10
        }
        var index = start
        let negative = base[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard index < end else {
            if final { throw syntaxError("A minus sign must be followed by digits", at: origin + Int64(index)) }
            return nil
        }
        var magnitude: UInt64 = 0
        var digits = 0
        if base[index] == UInt8(ascii: "0") {
            index += 1
            if isDigit(index) { throw syntaxError("Numbers cannot have leading zeros", at: origin + Int64(start)) }
        } else if isDigit(index) {
            while isDigit(index) {
                if digits < 19 { magnitude = magnitude &* 10 &+ UInt64(base[index] &- UInt8(ascii: "0")) }
                digits += 1
                index += 1
            }
        } else {
            throw syntaxError("Invalid number: \(Self.describe(base[index])) after the minus sign", at: origin + Int64(index))
        }
        var isInteger = true
        var fractionDigits = 0
        if index < end, base[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard isDigit(index) else {
                if index >= end && !final { return nil }
                throw syntaxError("A decimal point must be followed by digits", at: origin + Int64(index))
            }
            while isDigit(index) {
                if digits + fractionDigits < 19 { magnitude = magnitude &* 10 &+ UInt64(base[index] &- UInt8(ascii: "0")) }
                fractionDigits += 1
                index += 1
            }
        }
        var hasExponent = false
        if index < end, base[index] == UInt8(ascii: "e") || base[index] == UInt8(ascii: "E") {
            isInteger = false
            hasExponent = true
            index += 1
            if index < end, base[index] == UInt8(ascii: "+") || base[index] == UInt8(ascii: "-") { index += 1 }
            guard isDigit(index) else {
                if index >= end && !final { return nil }
                throw syntaxError("An exponent must have digits", at: origin + Int64(index))
            }
            while isDigit(index) { index += 1 }
        }
        if index >= end && !final { return nil }
        if !build { return (JSON.Number(0), index) }
        if isInteger && digits <= 18 {
            return (JSON.Number(negative ? -Int64(magnitude) : Int64(magnitude)), index)
        }
        // Plain decimals of up to 18 digits in all stay inline (not negative zero: its sign
        // would be lost).
        if !hasExponent && digits + fractionDigits <= 18 && (magnitude != 0 || !negative) {
            let significand = negative ? -Int64(magnitude) : Int64(magnitude)
            return (JSON.Number(significand: significand, fractionDigits: UInt8(fractionDigits)), index)
        }
        let text = String(decoding: UnsafeBufferPointer(start: base + start, count: index - start), as: UTF8.self)
        return (JSON.Number(validatedText: text), index)
    }

    // MARK: - Literals

    /// The literal of `length` bytes (5 when it starts with `f`, otherwise 4) at `bytes`. Each word
    /// is compared as one four-byte load (`false` after its `f`), not byte by byte.
    mutating func literal(_ bytes: UnsafePointer<UInt8>, length: Int, at offset: Int64) throws -> JSON {
        let raw = UnsafeRawPointer(bytes)
        if length == 4 {
            let word = raw.loadUnaligned(as: UInt32.self)
            if word == Self.word("t", "r", "u", "e") { return .bool(true) }
            if word == Self.word("n", "u", "l", "l") { return .null }
        } else if bytes[0] == UInt8(ascii: "f"), raw.loadUnaligned(fromByteOffset: 1, as: UInt32.self) == Self.word("a", "l", "s", "e") {
            return .bool(false)
        }
        throw syntaxError("Invalid literal; expected true, false or null", at: offset)
    }

    /// Four ASCII characters as a four-byte load from memory holding them in order gives them.
    @inline(__always)
    private static func word(_ a: Unicode.Scalar, _ b: Unicode.Scalar, _ c: Unicode.Scalar, _ d: Unicode.Scalar) -> UInt32 {
        UInt32(littleEndian: a.value | b.value << 8 | c.value << 16 | d.value << 24)
    }

    /// Fails early when the start of a cut literal already cannot be `true`, `false` or `null`.
    mutating func checkLiteralPrefix(_ bytes: UnsafePointer<UInt8>, count: Int, at offset: Int64) throws {
        let prefix = UnsafeBufferPointer(start: bytes, count: count)
        for word in ["true", "false", "null"] where word.utf8.starts(with: prefix) { return }
        throw syntaxError("Invalid literal; expected true, false or null", at: offset)
    }
}
