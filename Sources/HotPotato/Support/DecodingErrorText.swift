/// Describes a `DecodingError` in one line, with the coding path as a key path.
enum DecodingErrorText {
    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            return "no value for key \"\(key.stringValue)\"\(location(context.codingPath))."
        case .valueNotFound(let type, let context):
            return "expected \(type) but found null\(location(context.codingPath))."
        case .typeMismatch(let type, let context):
            return "expected \(type)\(location(context.codingPath)): \(context.debugDescription)"
        case .dataCorrupted(let context):
            return "\(context.debugDescription)\(location(context.codingPath))"
        @unknown default:
            return "\(error)"
        }
    }

    private static func location(_ path: [any CodingKey]) -> String {
        guard !path.isEmpty else { return "" }
        let keyPath = path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        return " at \"\(keyPath)\""
    }
}
