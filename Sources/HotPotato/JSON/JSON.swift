/// A JSON value: HotPotato's typed representation of a parsed JSON document.
///
/// `JSON` is a plain `Sendable`, `Hashable` enum, so it can be stored, compared and passed
/// between tasks. Reach into it with key paths or typed accessors:
///
/// ```swift
/// let json = try await session.get(url).asJSON().content
/// json["user.followers.0.name"]?.stringValue   // dot-separated keys and array indices
/// json["items"]?.arrayValue?.count
/// json["count"]?.intValue
/// ```
///
/// Numbers are ``Number`` values that keep the exact digits the document gave, so large integers
/// and long decimals are not rounded unless you ask for a `Double`.
public enum JSON: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, kept exact; see ``Number``.
    case number(Number)
    /// A string.
    case string(String)
    /// An array.
    case array([JSON])
    /// An object: its members in the document's order, each key once; see ``Object``, and
    /// ``JSONParser`` for how duplicate keys in a document are treated.
    case object(Object)
}

extension JSON: CustomStringConvertible {
    /// The value serialised as compact JSON, members in order.
    public var description: String {
        serialized()
    }
}

extension JSON: ExpressibleByBooleanLiteral {
    /// Creates `.bool(value)`.
    public init(booleanLiteral value: Bool) {
        self = .bool(value)
    }
}

extension JSON: ExpressibleByIntegerLiteral {
    /// Creates `.number` from an integer literal.
    public init(integerLiteral value: Int64) {
        self = .number(Number(value))
    }
}

extension JSON: ExpressibleByFloatLiteral {
    /// Creates `.number` from a floating-point literal.
    public init(floatLiteral value: Double) {
        self = .number(Number(floatLiteral: value))
    }
}

extension JSON: ExpressibleByStringLiteral {
    /// Creates `.string(value)`.
    public init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension JSON: ExpressibleByArrayLiteral {
    /// Creates `.array(elements)`.
    public init(arrayLiteral elements: JSON...) {
        self = .array(elements)
    }
}

extension JSON: ExpressibleByDictionaryLiteral {
    /// Creates `.object`, keeping the literal's order; when a key repeats, the last value wins.
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self = .object(Object(elements.map { Object.Member(key: $0.0, value: $0.1) }))
    }
}
