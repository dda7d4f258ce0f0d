/// Parses RFC 9110 media types:
/// `token "/" token *( OWS ";" OWS [ token "=" ( token / quoted-string ) ] )`.
enum MediaTypeParser {
    static func parse(_ text: String) -> MediaType? {
        var bytes = Array(text.utf8)[...]
        trimWhitespace(&bytes)
        guard let type = takeToken(&bytes), bytes.first == UInt8(ascii: "/") else { return nil }
        bytes = bytes.dropFirst()
        guard let subtype = takeToken(&bytes) else { return nil }

        var parameters: [(String, String)] = []
        while true {
            skipWhitespace(&bytes)
            guard let first = bytes.first else { break }
            guard first == UInt8(ascii: ";") else { return nil }
            bytes = bytes.dropFirst()
            skipWhitespace(&bytes)
            // RFC 9110 allows empty parameters (`text/plain;;charset=utf-8`, a trailing `;`).
            if bytes.isEmpty || bytes.first == UInt8(ascii: ";") { continue }
            guard let name = takeToken(&bytes), bytes.first == UInt8(ascii: "=") else { return nil }
            bytes = bytes.dropFirst()
            let value: String
            if bytes.first == UInt8(ascii: "\"") {
                guard let quoted = takeQuotedString(&bytes) else { return nil }
                value = quoted
            } else {
                guard let token = takeToken(&bytes) else { return nil }
                value = token
            }
            parameters.append((name, value))
        }
        return MediaType(type: type, subtype: subtype, parameters: parameters)
    }

    private static func takeToken(_ bytes: inout ArraySlice<UInt8>) -> String? {
        let end = bytes.firstIndex { !ASCII.isTokenByte($0) } ?? bytes.endIndex
        guard end > bytes.startIndex else { return nil }
        let token = String(decoding: bytes[bytes.startIndex..<end], as: UTF8.self)
        bytes = bytes[end...]
        return token
    }

    private static func takeQuotedString(_ bytes: inout ArraySlice<UInt8>) -> String? {
        var index = bytes.index(after: bytes.startIndex)
        var value: [UInt8] = []
        while index < bytes.endIndex {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                bytes = bytes[bytes.index(after: index)...]
                return String(decoding: value, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index = bytes.index(after: index)
                guard index < bytes.endIndex else { return nil }
                value.append(bytes[index])
            case 0x00..<0x20 where byte != 0x09, 0x7F:
                return nil
            default:
                value.append(byte)
            }
            index = bytes.index(after: index)
        }
        return nil
    }

    private static func skipWhitespace(_ bytes: inout ArraySlice<UInt8>) {
        while let first = bytes.first, ASCII.isWhitespace(first) { bytes = bytes.dropFirst() }
    }

    private static func trimWhitespace(_ bytes: inout ArraySlice<UInt8>) {
        skipWhitespace(&bytes)
        while let last = bytes.last, ASCII.isWhitespace(last) { bytes = bytes.dropLast() }
    }
}
