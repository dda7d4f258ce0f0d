/// Text from the network made safe to print on a terminal: a server's message, a status
/// phrase, header names and values, a reason that quotes them.
///
/// A server controls those bytes, and a terminal obeys escape sequences in them: `ESC ] 2 ; …
/// BEL` retitles the window, `ESC [ 2 J` clears the screen, and a C1 control or a bidirectional
/// override can make a line read as something else. Every control character (C0 but tab, DEL,
/// C1) is shown as a visible escape such as `\x1B`, and bidirectional formatting characters as
/// `\u{202E}`, so the text keeps its information but cannot steer the terminal.
///
/// Used by ``EventLogger`` for every line it writes, and by `potato` (hence `package`).
package enum TerminalText {
    package static func safe(_ text: String) -> String {
        safe(text) { scalar in
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return scalar.value < 0x100 ? "\\x" + (hex.count < 2 ? "0" : "") + hex : "\\u{" + hex + "}"
        }
    }

    /// `text` with each character that ``needsEscaping(_:)`` written as `escape` says (a JSON line
    /// uses `\u` escapes, which keep it valid JSON).
    package static func safe(_ text: String, escaping escape: (Unicode.Scalar) -> String) -> String {
        guard text.unicodeScalars.contains(where: needsEscaping) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if needsEscaping(scalar) {
                result += escape(scalar)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Controls, and the bidirectional embeddings, overrides and isolates.
    package static func needsEscaping(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09: return false
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x061C: return true
        default: return false
        }
    }
}
