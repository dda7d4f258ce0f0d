import Foundation

/// The header fields of an HTTP response, in the order the server sent them — where the engine
/// knows it: the libcurl engine's heads keep it; URLSession hands its headers over as a
/// dictionary, which keeps no order, so heads made from one (the initializer that takes a
/// dictionary) are sorted by name.
///
/// Lookups by name are case-insensitive (`headers["content-type"]` finds `Content-Type`), as
/// RFC 9110 requires. A field that appears more than once keeps every value:
/// ``values(for:)`` returns them all, while the subscript joins them with `", "` (the combination
/// RFC 9110 defines for list-valued fields).
///
/// ```swift
/// let headers: HTTPHeaders = ["Content-Type": "application/json", "ETag": "\"v1\""]
/// headers["content-type"]   // "application/json"
/// ```
public struct HTTPHeaders: Sendable, Hashable {
    /// One header field: its name as received and its value.
    public struct Field: Sendable, Hashable {
        /// The field name, with the capitalisation the server used.
        public var name: String
        /// The field value, without surrounding whitespace.
        public var value: String

        /// Creates a header field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Every field in the order received.
    public private(set) var fields: [Field]

    /// Creates headers from fields, keeping their order.
    public init(_ fields: [Field] = []) {
        self.fields = fields
    }

    /// Creates headers from name–value pairs, keeping their order.
    public init(_ pairs: [(String, String)]) {
        self.fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    /// Creates headers from a dictionary such as `HTTPURLResponse.allHeaderFields`.
    ///
    /// The fields are sorted by name so that the result does not depend on dictionary order.
    public init(_ dictionary: [AnyHashable: Any]) {
        // Each name lowercased once for the sort, not at every comparison.
        var pairs: [(key: String, field: Field)] = []
        pairs.reserveCapacity(dictionary.count)
        for (key, value) in dictionary {
            let name = key.base as? String ?? "\(key.base)"
            pairs.append((name.lowercased(), Field(name: name, value: value as? String ?? "\(value)")))
        }
        pairs.sort { $0.key < $1.key }
        self.init(pairs.map(\.field))
    }

    /// The value of the field `name` (case-insensitive), or `nil` when it is absent.
    ///
    /// Several fields of the same name are joined with `", "`.
    public subscript(name: String) -> String? {
        let values = values(for: name)
        switch values.count {
        case 0: return nil
        case 1: return values[0]
        default: return values.joined(separator: ", ")
        }
    }

    /// Every value of the field `name` (case-insensitive), in the order received.
    public func values(for name: String) -> [String] {
        fields.compactMap { Self.namesMatch($0.name, name) ? $0.value : nil }
    }

    /// Whether a field named `name` (case-insensitive) is present.
    public func contains(_ name: String) -> Bool {
        fields.contains { Self.namesMatch($0.name, name) }
    }

    /// Appends a field, keeping any existing field of the same name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field named `name` with one field holding `value`.
    public mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        add(name: name, value: value)
    }

    /// Removes every field named `name` (case-insensitive).
    public mutating func remove(name: String) {
        fields.removeAll { Self.namesMatch($0.name, name) }
    }

    /// The number of fields.
    public var count: Int { fields.count }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    static func namesMatch(_ lhs: String, _ rhs: String) -> Bool {
        ASCII.caseInsensitiveEquals(lhs, rhs)
    }
}

extension HTTPHeaders: ExpressibleByDictionaryLiteral {
    /// Creates headers from a literal, keeping the literal's order.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }
}

extension HTTPHeaders: Sequence {
    /// Iterates over the fields in the order received.
    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }
}

extension HTTPHeaders: CustomStringConvertible {
    /// The fields as `Name: value` lines.
    public var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }
}
