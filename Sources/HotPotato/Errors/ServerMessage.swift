/// Finds the human-readable message in an error body.
enum ServerMessage {
    /// Key paths tried in order on a JSON error body.
    static let keyPaths = [
        "error", "message", "detail", "error_description", "errors.0.message", "title",
        "error.message", "errors.0",
    ]

    /// Plain-text bodies longer than this are not treated as a message.
    static let maximumTextLength = 1_000

    static func extract(from body: ErrorBody) -> String? {
        if let json = body.json {
            for keyPath in keyPaths {
                if let message = json[keyPath]?.stringValue?.trimmed, !message.isEmpty {
                    return message
                }
            }
            return nil
        }
        let text = body.text.trimmed
        guard !text.isEmpty, text.count <= maximumTextLength else { return nil }
        if let type = body.contentType {
            guard type.type == "text", type.subtype != "html" else { return nil }
        } else if text.hasPrefix("<") {
            return nil
        }
        return text
    }
}

extension String {
    fileprivate var trimmed: String {
        var scalars = unicodeScalars[...]
        while let first = scalars.first, first.properties.isWhitespace { scalars = scalars.dropFirst() }
        while let last = scalars.last, last.properties.isWhitespace { scalars = scalars.dropLast() }
        return String(String.UnicodeScalarView(scalars))
    }
}
