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
        guard !text.isEmpty else { return nil }
        if let type = body.contentType, type.type == "text", type.subtype == "html" {
            return htmlTitle(text)
        }
        guard text.count <= maximumTextLength else { return nil }
        if let type = body.contentType {
            guard type.type == "text" else { return nil }
        } else if text.hasPrefix("<") {
            return htmlTitle(text)
        }
        return text
    }

    /// The longest `<title>` taken as a message.
    static let maximumTitleLength = 200

    /// The `<title>` of an HTML page, its few common entities decoded and its spaces collapsed,
    /// when it has a short one: what servers' own error pages say (nginx's `400 No required SSL
    /// certificate was sent`, Apache's `404 Not Found`).
    static func htmlTitle(_ html: String) -> String? {
        let lowered = html.lowercased()
        guard let open = lowered.range(of: "<title"), let openEnd = lowered[open.upperBound...].firstIndex(of: ">"),
              let close = lowered[openEnd...].range(of: "</title>") else { return nil }
        let start = html.index(after: openEnd)
        guard start <= close.lowerBound else { return nil }
        var title = String(html[start..<close.lowerBound])
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&nbsp;", " "), ("&amp;", "&")] {
            title = title.replacingOccurrences(of: entity, with: character)
        }
        title = title.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        guard !title.isEmpty, title.count <= maximumTitleLength else { return nil }
        return title
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
