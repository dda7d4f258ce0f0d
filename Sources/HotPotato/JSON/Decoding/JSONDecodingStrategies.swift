import Foundation

/// What a `JSONDecoder` was configured with, read once so that every value decoded with it
/// follows the same strategies.
struct JSONDecodingStrategies {
    let keys: JSONDecoder.KeyDecodingStrategy
    let dates: JSONDecoder.DateDecodingStrategy
    let data: JSONDecoder.DataDecodingStrategy
    let nonConformingFloats: JSONDecoder.NonConformingFloatDecodingStrategy
    let userInfo: [CodingUserInfoKey: any Sendable]
    /// Whether keys are used as written (then `[String: Value]` needs no special treatment).
    let usesDefaultKeys: Bool

    init(_ decoder: JSONDecoder) {
        keys = decoder.keyDecodingStrategy
        dates = decoder.dateDecodingStrategy
        data = decoder.dataDecodingStrategy
        nonConformingFloats = decoder.nonConformingFloatDecodingStrategy
        userInfo = decoder.userInfo
        if case .useDefaultKeys = decoder.keyDecodingStrategy {
            usesDefaultKeys = true
        } else {
            usesDefaultKeys = false
        }
    }

    /// `JSONDecoder()`'s: default keys, dates, data and floats.
    static let standard = JSONDecodingStrategies(JSONDecoder())

    /// `snake_case_key` as `snakeCaseKey`, as `JSONDecoder` converts it: leading and trailing
    /// underscores are kept, and a key of one word is left exactly as it is.
    static func camelCase(fromSnakeCase key: String) -> String {
        guard key.contains("_") else { return key }
        let characters = Array(key)
        guard let first = characters.firstIndex(where: { $0 != "_" }) else { return key }
        var last = characters.count - 1
        while characters[last] == "_" { last -= 1 }
        let words = String(characters[first...last]).split(separator: "_")
        guard words.count > 1 else { return key }
        let joined = ([words[0].lowercased()] + words.dropFirst().map { $0.capitalized }).joined()
        return String(characters[..<first]) + joined + String(characters[(last + 1)...])
    }
}
