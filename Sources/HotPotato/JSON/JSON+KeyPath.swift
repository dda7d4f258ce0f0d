extension JSON {
    /// The value at a dot-separated key path, or `nil` when any step is missing.
    ///
    /// Each component is an object key, or, on an array, a zero-based index:
    /// `json["user.followers.0.name"]`. An empty key path is the value itself. To reach a key that
    /// itself contains a dot, use ``subscript(key:)`` step by step.
    public subscript(keyPath: String) -> JSON? {
        var current = self
        if keyPath.isEmpty { return current }
        for component in keyPath.split(separator: ".", omittingEmptySubsequences: false) {
            guard let next = current.child(String(component)) else { return nil }
            current = next
        }
        return current
    }

    /// The member named `key` of an object (no key-path splitting), or `nil`.
    public subscript(key key: String) -> JSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The element at `index` of an array, or `nil` when out of range or not an array.
    public subscript(index: Int) -> JSON? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    private func child(_ component: String) -> JSON? {
        switch self {
        case .object(let members):
            return members[component]
        case .array(let elements):
            guard let index = JSON.arrayIndex(component[...]), elements.indices.contains(index) else { return nil }
            return elements[index]
        default:
            return nil
        }
    }

    /// A key-path component as an array index: decimal digits only (no sign, no spaces).
    static func arrayIndex(_ component: Substring) -> Int? {
        guard !component.isEmpty, component.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(component)
    }
}
