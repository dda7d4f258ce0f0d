import Foundation

/// One part of a multipart form from the command line: `-F` in curl's syntax, or
/// `--form-string` (the value as it is).
///
/// - `-F name=value`: a text field (the value as it is; a value starting with `@` or `<` names a
///   file, as below — send such a text with `--form-string`);
/// - `-F name=@file`: the file, streamed from disk, with its name as the file name; after it,
///   `;type=TYPE` sets its content type and `;filename=NAME` the file name announced;
/// - `-F name=<file`: a text field whose value is the file's contents (`;type=` allowed).
///
/// A file name with `;` or `"` in it is written in double quotes, where `\"` and `\\` stand for
/// `"` and `\` (`-F 'doc=@"a;b.txt";type=text/plain'`); so can the values of `type` and `filename`.
struct FormArgument: Equatable {
    enum Content: Equatable {
        /// A text field.
        case text(String)
        /// A file, streamed (`@`).
        case file(path: String)
        /// A text field whose value is a file's contents (`<`).
        case fileContents(path: String)
    }

    var name: String
    var content: Content
    var contentType: String?
    var fileName: String?

    /// Parses `-F`'s argument (`option` names the option in messages).
    static func parse(_ text: String, option: String = "-F") throws(UsageError) -> FormArgument {
        let (name, rest) = try split(text, option: option)
        guard let marker = rest.first, marker == "@" || marker == "<" else {
            return FormArgument(name: name, content: .text(String(rest)))
        }
        var scanner = Scanner(text: rest.dropFirst(), argument: text, option: option)
        let path = try scanner.value()
        guard !path.isEmpty else { throw UsageError("\(option) \"\(text)\" names no file after \(marker)") }
        var argument = FormArgument(name: name, content: marker == "@" ? .file(path: path) : .fileContents(path: path))
        while try scanner.attributeFollows() {
            let key = try scanner.key()
            let value = try scanner.value()
            switch key {
            case "type" where value.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }):
                throw UsageError("\(option) \"\(text)\": ;type= has a control character (a line break …)")
            case "type" where !value.isEmpty:
                argument.contentType = value
            case "filename" where marker == "@":
                argument.fileName = value
            case "type", "filename":
                throw UsageError("\(option) \"\(text)\": ;\(key)= needs a value\(key == "filename" ? " and applies to name=@file only" : "")")
            default:
                throw UsageError("\(option) \"\(text)\": unknown ;\(key)= (potato knows ;type= and ;filename=)")
            }
        }
        return argument
    }

    /// Parses `--form-string`'s argument: `name=value`, the value as it is.
    static func literal(_ text: String) throws(UsageError) -> FormArgument {
        let (name, value) = try split(text, option: "--form-string")
        return FormArgument(name: name, content: .text(String(value)))
    }

    private static func split(_ text: String, option: String) throws(UsageError) -> (String, Substring) {
        guard let equals = text.firstIndex(of: "=") else {
            throw UsageError("\(option) \"\(text)\" is not name=value, name=@file or name=<file")
        }
        guard equals != text.startIndex else { throw UsageError("\(option) \"\(text)\" has no field name before =") }
        return (String(text[..<equals]), text[text.index(after: equals)...])
    }

    /// Reads a file name and `;key=value` attributes, each value plain (up to the next `;`) or in
    /// double quotes.
    private struct Scanner {
        var text: Substring
        let argument: String
        let option: String

        mutating func value() throws(UsageError) -> String {
            guard text.first == "\"" else {
                let end = text.firstIndex(of: ";") ?? text.endIndex
                defer { text = text[end...] }
                return String(text[..<end])
            }
            var result = ""
            var index = text.index(after: text.startIndex)
            while index < text.endIndex {
                let character = text[index]
                if character == "\"" {
                    text = text[text.index(after: index)...]
                    return result
                }
                if character == "\\", text.index(after: index) < text.endIndex {
                    index = text.index(after: index)
                }
                result.append(text[index])
                index = text.index(after: index)
            }
            throw UsageError("\(option) \"\(argument)\": a quoted name is not closed")
        }

        /// Whether a `;` follows (consumed); anything else after a value is an error.
        mutating func attributeFollows() throws(UsageError) -> Bool {
            guard let first = text.first else { return false }
            guard first == ";" else { throw UsageError("\(option) \"\(argument)\": unexpected text after a quoted name") }
            text = text.dropFirst()
            return true
        }

        mutating func key() throws(UsageError) -> String {
            guard let equals = text.firstIndex(of: "=") else {
                throw UsageError("\(option) \"\(argument)\": \";\(text)\" is not ;type=TYPE or ;filename=NAME")
            }
            defer { text = text[text.index(after: equals)...] }
            return text[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
        }
    }
}
