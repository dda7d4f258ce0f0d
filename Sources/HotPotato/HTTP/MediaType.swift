/// A media type (`type/subtype; name=value`), as found in a `Content-Type` header or used as an
/// acceptance pattern.
///
/// Type, subtype and parameter names are compared case-insensitively and stored lowercased;
/// parameter values keep their case (a quoted value is unquoted). As a pattern, a media type may
/// use wildcards and structured suffixes — see ``matches(_:)``:
///
/// ```swift
/// let json: MediaType = "application/*+json"
/// json.matches("application/problem+json; charset=utf-8")   // true
/// ```
public struct MediaType: Sendable, Hashable {
    /// The top-level type, lowercased (`"application"`), or `"*"`.
    public let type: String
    /// The subtype, lowercased (`"problem+json"`), or `"*"` / `"*+json"` in a pattern.
    public let subtype: String
    /// The parameters in the order given, names lowercased, values unquoted.
    public let parameters: [Parameter]

    /// One `name=value` parameter of a media type.
    public struct Parameter: Sendable, Hashable {
        /// The parameter name, lowercased.
        public let name: String
        /// The parameter value, unquoted, case preserved.
        public let value: String
    }

    /// Creates a media type from its parts. Type, subtype and parameter names are lowercased.
    public init(type: String, subtype: String, parameters: [(String, String)] = []) {
        self.type = ASCII.lowercased(type)
        self.subtype = ASCII.lowercased(subtype)
        self.parameters = parameters.map { Parameter(name: ASCII.lowercased($0.0), value: $0.1) }
    }

    /// Parses a media type such as the value of a `Content-Type` header.
    ///
    /// Returns `nil` when the text is not a valid RFC 9110 media type (no `/`, an empty or
    /// invalid type or subtype, a malformed parameter).
    public init?(parsing text: String) {
        guard let parsed = MediaTypeParser.parse(text) else { return nil }
        self = parsed
    }

    /// The value of parameter `name` (case-insensitive), or `nil`.
    public func parameter(_ name: String) -> String? {
        parameters.first { ASCII.caseInsensitiveEquals($0.name, name) }?.value
    }

    /// The `charset` parameter, lowercased, or `nil`.
    public var charset: String? {
        parameter("charset").map(ASCII.lowercased)
    }

    /// The structured syntax suffix (`"json"` for `application/problem+json`), or `nil`.
    public var suffix: String? {
        guard let plus = subtype.lastIndex(of: "+") else { return nil }
        let suffix = subtype[subtype.index(after: plus)...]
        return suffix.isEmpty ? nil : String(suffix)
    }

    /// The media type without its parameters, as `type/subtype`.
    public var essence: String { "\(type)/\(subtype)" }

    /// Whether this media type, used as a pattern, matches `candidate`.
    ///
    /// Parameters are ignored on both sides. Types and subtypes compare case-insensitively.
    /// - `*/*` matches everything; `text/*` matches every `text/` subtype.
    /// - `application/*+json` matches any `application/` subtype with the `+json` suffix.
    /// - `application/json` also matches `application/problem+json` and other `+json` types,
    ///   because a structured suffix declares the syntax (RFC 6839): such a body can be read as
    ///   JSON. Likewise `application/xml` matches `application/atom+xml`.
    public func matches(_ candidate: MediaType) -> Bool {
        if type != "*" && type != candidate.type { return false }
        if subtype == "*" || subtype == candidate.subtype { return true }
        if subtype.hasPrefix("*+") {
            return candidate.suffix == String(subtype.dropFirst(2))
        }
        return candidate.suffix == subtype
    }

    /// The wildcard pattern `*/*`, which matches every media type.
    public static let any = MediaType(type: "*", subtype: "*")
    /// `application/json`.
    public static let json = MediaType(type: "application", subtype: "json")
    /// `application/*+json`: every JSON-based application type (`problem+json`, `vnd.api+json`…).
    public static let anyJSON = MediaType(type: "application", subtype: "*+json")
    /// `application/octet-stream`.
    public static let octetStream = MediaType(type: "application", subtype: "octet-stream")
    /// `text/plain`.
    public static let plainText = MediaType(type: "text", subtype: "plain")
    /// `text/*`.
    public static let anyText = MediaType(type: "text", subtype: "*")
    /// `text/event-stream`: Server-Sent Events.
    public static let eventStream = MediaType(type: "text", subtype: "event-stream")
}

extension MediaType: ExpressibleByStringLiteral {
    /// Creates a media type from a literal such as `"application/json"`.
    ///
    /// A literal that does not parse becomes a pattern that matches nothing, so a typo rejects
    /// responses instead of crashing; prefer the failable ``init(parsing:)`` for input that is not a
    /// literal.
    ///
    /// `MediaType("text/plain")` with a literal argument also goes through this initialiser.
    public init(stringLiteral value: String) {
        if let parsed = MediaType(parsing: value) {
            self = parsed
        } else {
            self.init(type: value, subtype: "\u{0}invalid")
        }
    }
}

extension MediaType: CustomStringConvertible {
    /// The media type as it would appear in a header: `type/subtype; name=value`.
    public var description: String {
        var text = essence
        for parameter in parameters {
            let needsQuotes = parameter.value.isEmpty
                || !parameter.value.utf8.allSatisfy(ASCII.isTokenByte)
            let value = needsQuotes
                ? "\"" + parameter.value.replacingBackslashesAndQuotes() + "\""
                : parameter.value
            text += "; \(parameter.name)=\(value)"
        }
        return text
    }
}

extension String {
    fileprivate func replacingBackslashesAndQuotes() -> String {
        var result = ""
        for character in self {
            if character == "\\" || character == "\"" { result.append("\\") }
            result.append(character)
        }
        return result
    }
}
