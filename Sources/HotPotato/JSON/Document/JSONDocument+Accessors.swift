import Foundation

extension JSONDocument {
    // MARK: - Reaching in

    /// The value at a dot-separated key path, or `nil` when any step is missing: the same rules as
    /// ``JSON/subscript(_:)-(String)`` (`document["user.followers.0.name"]`; an empty key path is
    /// the value itself).
    public subscript(keyPath: String) -> JSONDocument? {
        guard let found = storage.entry(atKeyPath: keyPath, from: index) else { return nil }
        return JSONDocument(storage: storage, index: found)
    }

    /// The member named `key` of an object (no key-path splitting), or `nil`. Where the document
    /// repeats a key, the value is the one ``JSONParsingOptions/duplicateKeys`` chose.
    public subscript(key key: String) -> JSONDocument? {
        guard entry.kind == .object, let found = storage.member(key, of: index) else { return nil }
        return JSONDocument(storage: storage, index: found)
    }

    /// The element at `index` of an array, or `nil` when out of range or not an array.
    public subscript(index: Int) -> JSONDocument? {
        guard entry.kind == .array, let found = storage.element(index, of: self.index) else { return nil }
        return JSONDocument(storage: storage, index: found)
    }

    // MARK: - Containers

    /// The number of elements of an array or members of an object; `nil` for other values.
    public var count: Int? {
        entry.isContainer ? Int(entry.length) : nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONDocument]? {
        guard entry.kind == .array else { return nil }
        return storage.read { $0.elements(of: index) }?.map { JSONDocument(storage: storage, index: $0) }
    }

    /// The members in the document's order, each key once (as ``JSONParsingOptions/duplicateKeys``
    /// chose), when this is an object.
    public var members: [(key: String, value: JSONDocument)]? {
        guard entry.kind == .object else { return nil }
        let found = storage.read { try? $0.members(of: index) } ?? nil
        return found?.map { (key: $0.key, value: JSONDocument(storage: storage, index: $0.value)) }
    }

    /// The keys in the document's order, each once, when this is an object.
    public var keys: [String]? {
        members?.map(\.key)
    }

    // MARK: - Scalars

    /// The string, when this is a string.
    public var stringValue: String? {
        guard entry.kind == .string else { return nil }
        return storage.string(at: index)
    }

    /// The Boolean, when this is `true` or `false`.
    public var boolValue: Bool? {
        switch entry.kind {
        case .true: return true
        case .false: return false
        default: return nil
        }
    }

    /// The number, exact, when this is a number.
    public var numberValue: JSON.Number? {
        guard entry.kind == .number else { return nil }
        return storage.number(at: index)
    }

    /// The number as an `Int`, when this is an integral number that fits (`2.0` and `2e3` count).
    public var intValue: Int? { numberValue?.intValue }

    /// The number as an `Int64`, when this is an integral number that fits.
    public var int64Value: Int64? { numberValue?.int64Value }

    /// The number as the nearest `Double`, when this is a number.
    public var doubleValue: Double? {
        guard entry.kind == .number else { return nil }
        return storage.double(at: index)
    }

    /// Whether this is `null`.
    public var isNull: Bool { entry.kind == .null }
}
