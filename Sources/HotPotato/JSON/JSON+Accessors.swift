extension JSON {
    /// The string, when this is `.string`.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The Boolean, when this is `.bool`.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The number, when this is `.number`.
    public var numberValue: Number? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The number as an `Int`, when this is an integral number that fits (`2.0` and `2e3` count).
    public var intValue: Int? { numberValue?.intValue }

    /// The number as an `Int64`, when this is an integral number that fits.
    public var int64Value: Int64? { numberValue?.int64Value }

    /// The number as the nearest `Double`, when this is `.number`.
    public var doubleValue: Double? { numberValue?.doubleValue }

    /// The elements, when this is `.array`.
    public var arrayValue: [JSON]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The object, when this is `.object`.
    public var objectValue: Object? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// Whether this is `.null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}
