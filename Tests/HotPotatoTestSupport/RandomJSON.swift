import Foundation
@testable import HotPotato

/// A deterministic generator (SplitMix64), so that a failing random document can be reproduced
/// from its seed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

/// Random JSON documents, written with random whitespace, escapes and number forms, together with
/// the value they hold.
struct RandomJSON {
    var generator: SeededGenerator

    init(seed: UInt64) {
        generator = SeededGenerator(seed: seed)
    }

    /// A document and its value.
    mutating func document(depth: Int = 4) -> (text: String, value: JSON) {
        var text = whitespace()
        let value = self.value(depth: depth, into: &text)
        text += whitespace()
        return (text, value)
    }

    private mutating func value(depth: Int, into text: inout String) -> JSON {
        switch Int.random(in: 0..<(depth > 0 ? 8 : 5), using: &generator) {
        case 0:
            text += "null"
            return .null
        case 1:
            let flag = Bool.random(using: &generator)
            text += flag ? "true" : "false"
            return .bool(flag)
        case 2, 3:
            let (written, number) = self.number()
            text += written
            return .number(number)
        case 4:
            let (written, string) = self.string()
            text += written
            return .string(string)
        case 5, 6:
            return array(depth: depth, into: &text)
        default:
            return object(depth: depth, into: &text)
        }
    }

    private mutating func array(depth: Int, into text: inout String) -> JSON {
        text += "[" + whitespace()
        var elements: [JSON] = []
        for index in 0..<Int.random(in: 0...6, using: &generator) {
            if index > 0 { text += whitespace() + "," + whitespace() }
            elements.append(value(depth: depth - 1, into: &text))
        }
        text += whitespace() + "]"
        return .array(elements)
    }

    private mutating func object(depth: Int, into text: inout String) -> JSON {
        text += "{" + whitespace()
        var object = JSON.Object()
        var used = Set<String>()
        for _ in 0..<Int.random(in: 0...6, using: &generator) {
            let (written, key) = string()
            guard used.insert(key).inserted else { continue }
            if !object.isEmpty { text += whitespace() + "," + whitespace() }
            text += written + whitespace() + ":" + whitespace()
            object[key] = value(depth: depth - 1, into: &text)
        }
        text += whitespace() + "}"
        return .object(object)
    }

    private mutating func number() -> (String, JSON.Number) {
        let written: String
        switch Int.random(in: 0..<7, using: &generator) {
        case 0: written = String(Int64.random(in: -1000...1000, using: &generator))
        case 1: written = String(Int64.random(in: .min ... .max, using: &generator))
        case 2:
            let fraction = String(UInt64.random(in: 0...999_999, using: &generator))
            written = "\(Int.random(in: -99...99, using: &generator)).\(String(repeating: "0", count: Int.random(in: 0...3, using: &generator)))\(fraction)"
        case 3: written = "\(Double.random(in: -1e6...1e6, using: &generator))"
        case 4:
            written = "\(Int.random(in: 1...9, using: &generator)).\(Int.random(in: 0...99, using: &generator))"
                + "\(Bool.random(using: &generator) ? "e" : "E")\(["", "+", "-"].randomElement(using: &generator)!)"
                + "\(Int.random(in: 0...300, using: &generator))"
        case 5: written = "\(UInt64.random(in: 1...9, using: &generator))" + String(repeating: "7", count: Int.random(in: 18...30, using: &generator))
        default: written = "0.\(String(repeating: "0", count: Int.random(in: 0...5, using: &generator)))\(Int.random(in: 1...99_999, using: &generator))"
        }
        return (written, JSON.Number(text: written)!)
    }

    private static let pieces: [String] = [
        "a", "Z", "0", " ", "é", "ü", "中", "日本", "🥔", "𐍈", "Ω", "—", "\"", "\\", "/", "\n", "\t", "\r", "\u{08}", "\u{0C}",
        "\u{01}", "\u{1F}", "\u{7F}", "key", "value", "longer run of plain ascii text",
    ]

    private mutating func string() -> (String, String) {
        var written = "\""
        var value = ""
        for _ in 0..<Int.random(in: 0...8, using: &generator) {
            let piece = Self.pieces.randomElement(using: &generator)!
            value += piece
            for scalar in piece.unicodeScalars {
                written += escaped(scalar)
            }
        }
        return (written + "\"", value)
    }

    /// A scalar as JSON string content: as itself when allowed, otherwise (and sometimes anyway)
    /// escaped.
    private mutating func escaped(_ scalar: Unicode.Scalar) -> String {
        let mustEscape = scalar.value < 0x20 || scalar == "\"" || scalar == "\\"
        guard mustEscape || Int.random(in: 0..<6, using: &generator) == 0 else { return String(scalar) }
        switch scalar {
        case "\"": return "\\\""
        case "\\": return "\\\\"
        case "\n" where Bool.random(using: &generator): return "\\n"
        case "/" where Bool.random(using: &generator): return "\\/"
        case "\t" where Bool.random(using: &generator): return "\\t"
        default:
            let uppercase = Bool.random(using: &generator)
            if scalar.value > 0xFFFF {
                let offset = scalar.value - 0x10000
                return Self.hex(0xD800 + (offset >> 10), uppercase: uppercase) + Self.hex(0xDC00 + (offset & 0x3FF), uppercase: uppercase)
            }
            return Self.hex(scalar.value, uppercase: uppercase)
        }
    }

    private static func hex(_ value: UInt32, uppercase: Bool) -> String {
        let digits = String(value, radix: 16, uppercase: uppercase)
        return "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
    }

    private mutating func whitespace() -> String {
        guard Int.random(in: 0..<4, using: &generator) == 0 else { return "" }
        return String((0..<Int.random(in: 1...3, using: &generator)).map { _ in [" ", "\t", "\n", "\r"].randomElement(using: &generator)! })
    }
}
