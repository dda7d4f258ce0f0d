import Foundation

extension JSON {
    /// The value as JSON text, object members in their order.
    ///
    /// Numbers are written with their exact digits; strings escape only what JSON requires
    /// (`"`, `\`, control characters), so non-ASCII text stays readable.
    /// - Parameter pretty: Indent nested values by two spaces, one member per line.
    public func serialized(pretty: Bool = false) -> String {
        var writer = JSONWriter(pretty: pretty)
        writer.write(self, depth: 0)
        return writer.output
    }

    /// The value as UTF-8 JSON bytes; see ``serialized(pretty:)``.
    public func serializedData(pretty: Bool = false) -> Data {
        Data(serialized(pretty: pretty).utf8)
    }
}

/// Writes a ``JSON`` value as text. Iterative in its output, recursive in the value's depth,
/// which the parser bounds.
struct JSONWriter {
    let pretty: Bool
    var output = ""

    init(pretty: Bool) {
        self.pretty = pretty
    }

    mutating func write(_ value: JSON, depth: Int) {
        switch value {
        case .null: output += "null"
        case .bool(let flag): output += flag ? "true" : "false"
        case .number(let number): output += number.text
        case .string(let string): writeString(string)
        case .array(let elements):
            guard !elements.isEmpty else { output += "[]"; return }
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                newline(depth + 1)
                write(element, depth: depth + 1)
            }
            newline(depth)
            output += "]"
        case .object(let members):
            guard !members.isEmpty else { output += "{}"; return }
            output += "{"
            let (keys, values) = members.parts
            for (index, (key, value)) in zip(keys.keys, values).enumerated() {
                if index > 0 { output += "," }
                newline(depth + 1)
                writeString(key)
                output += pretty ? ": " : ":"
                write(value, depth: depth + 1)
            }
            newline(depth)
            output += "}"
        }
    }

    private mutating func newline(_ depth: Int) {
        guard pretty else { return }
        output += "\n"
        output += String(repeating: "  ", count: depth)
    }

    private mutating func writeString(_ string: String) {
        output += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{8}": output += "\\b"
            case "\u{C}": output += "\\f"
            case "\u{0}"..."\u{1F}":
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
