import Foundation

/// `[String: Value]`, which `JSONDecoder` exempts from its key decoding strategy: its keys are
/// data, not property names.
private protocol StringKeyedDictionary {
    static var elementType: any Decodable.Type { get }
}

extension Dictionary: StringKeyedDictionary where Key == String, Value: Decodable {
    fileprivate static var elementType: any Decodable.Type { Value.self }
}

extension JSONValueDecoder {
    /// Decodes `type` from `value` found at `key` under `node` (or at `node` itself), with
    /// `JSONDecoder`'s special cases: `Date`, `Data`, `URL`, `Decimal` and `[String: Value]`.
    func unwrap<T: Decodable>(_ value: JSON, as type: T.Type, at node: CodingPathNode, _ key: (any CodingKey)?) throws -> T {
        if T.self == JSON.self { return value as! T }
        if T.self == String.self { return try unwrapString(value, at: node, key) as! T }
        if T.self == Date.self { return try unwrapDate(value, at: node, key) as! T }
        if T.self == Data.self { return try unwrapData(value, at: node, key) as! T }
        if T.self == URL.self { return try unwrapURL(value, at: node, key) as! T }
        if T.self == Decimal.self { return try unwrapDecimal(value, at: node, key) as! T }
        if let array = T.self as? any DecodableArray.Type {
            return try unwrapArray(value, as: array, at: node, key)
        }
        if !strategies.usesDefaultKeys, let dictionary = T.self as? any StringKeyedDictionary.Type {
            return try unwrapDictionary(value, elementType: dictionary.elementType, at: node, key) as! T
        }
        let inner = key.map { node.appending($0) } ?? node
        return try with(value, at: inner) { try T(from: self) }
    }

    func checkNotNull(_ value: JSON, _ type: Any.Type, at node: CodingPathNode, _ key: (any CodingKey)?) throws {
        if case .null = value {
            throw DecodingError.valueNotFound(type, DecodingError.Context(
                codingPath: node.path(adding: key), debugDescription: "Cannot get value of type \(type) -- found null value instead"))
        }
    }

    func unwrapBool(_ value: JSON, at node: CodingPathNode, _ key: (any CodingKey)?) throws -> Bool {
        guard case .bool(let bool) = value else {
            try checkNotNull(value, Bool.self, at: node, key)
            throw Self.typeMismatch(Bool.self, found: value, at: node.path(adding: key))
        }
        return bool
    }

    func unwrapString(_ value: JSON, at node: CodingPathNode, _ key: (any CodingKey)?) throws -> String {
        guard case .string(let string) = value else {
            try checkNotNull(value, String.self, at: node, key)
            throw Self.typeMismatch(String.self, found: value, at: node.path(adding: key))
        }
        return string
    }

    /// An integer of type `T` with exactly the number's value; `JSONDecoder` accepts `34.0` and
    /// `3.4e1` for 34, and so does this.
    func unwrapInteger<T: FixedWidthInteger>(_ value: JSON, as type: T.Type, at node: CodingPathNode, _ key: (any CodingKey)?) throws -> T {
        guard case .number(let number) = value else {
            try checkNotNull(value, type, at: node, key)
            throw Self.typeMismatch(type, found: value, at: node.path(adding: key))
        }
        if case .integer(let integer) = number.storage, let exact = T(exactly: integer) { return exact }
        if let exact = Self.integer(number, as: type) { return exact }
        throw DecodingError.dataCorrupted(DecodingError.Context(
            codingPath: node.path(adding: key), debugDescription: "Parsed JSON number <\(number.text)> does not fit in \(type)."))
    }

    private static func integer<T: FixedWidthInteger>(_ number: JSON.Number, as type: T.Type) -> T? {
        if let integer = number.int64Value { return T(exactly: integer) }
        let normalized = number.normalized
        // Beyond Int64: only unsigned or wider types can hold it.
        guard normalized.exponent >= 0, normalized.digits.count + normalized.exponent <= 40 else { return nil }
        let digits = String(decoding: normalized.digits, as: UTF8.self) + String(repeating: "0", count: normalized.exponent)
        return T((normalized.isNegative ? "-" : "") + digits)
    }

    func unwrapFloatingPoint<T: BinaryFloatingPoint & LosslessStringConvertible>(
        _ value: JSON, as type: T.Type, at node: CodingPathNode, _ key: (any CodingKey)?
    ) throws -> T {
        switch value {
        case .number(let number):
            let converted: T?
            switch number.storage {
            case .integer(let integer): converted = T(integer)
            case .decimal: converted = T.self == Double.self ? T(number.doubleValue) : T(number.text)
            case .text(let text): converted = T(text)
            }
            // Like JSONDecoder: a number too large for the type, or too small to be anything but
            // zero, is not silently made infinite or zero.
            if let converted, converted.isFinite, converted != 0 || number.normalized.digits.isEmpty {
                return converted
            }
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: node.path(adding: key), debugDescription: "Number \(number.text) is not representable in \(type)."))
        case .string(let string):
            if case .convertFromString(let positiveInfinity, let negativeInfinity, let nan) = strategies.nonConformingFloats {
                if string == positiveInfinity { return .infinity }
                if string == negativeInfinity { return -.infinity }
                if string == nan { return .nan }
            }
        default:
            try checkNotNull(value, type, at: node, key)
        }
        throw Self.typeMismatch(type, found: value, at: node.path(adding: key))
    }

    private func unwrapDate(_ value: JSON, at node: CodingPathNode, _ key: (any CodingKey)?) throws -> Date {
        try checkNotNull(value, Date.self, at: node, key)
        let inner = key.map { node.appending($0) } ?? node
        switch strategies.dates {
        case .deferredToDate:
            return try with(value, at: inner) { try Date(from: self) }
        case .secondsSince1970:
            return Date(timeIntervalSince1970: try unwrapFloatingPoint(value, as: Double.self, at: node, key))
        case .millisecondsSince1970:
            return Date(timeIntervalSince1970: try unwrapFloatingPoint(value, as: Double.self, at: node, key) / 1000)
        case .iso8601:
            let string = try unwrapString(value, at: node, key)
            guard let date = try? Date.ISO8601FormatStyle().parse(string) else {
                throw DecodingError.dataCorrupted(DecodingError.Context(
                    codingPath: inner.path, debugDescription: "Expected date string to be ISO8601-formatted."))
            }
            return date
        #if canImport(Darwin)
        case .formatted(let formatter):
            let string = try unwrapString(value, at: node, key)
            guard let date = formatter.date(from: string) else {
                throw DecodingError.dataCorrupted(DecodingError.Context(
                    codingPath: inner.path, debugDescription: "Date string does not match format expected by formatter."))
            }
            return date
        #endif
        case .custom(let closure):
            return try with(value, at: inner) { try closure(self) }
        @unknown default:
            return try with(value, at: inner) { try Date(from: self) }
        }
    }

    private func unwrapData(_ value: JSON, at node: CodingPathNode, _ key: (any CodingKey)?) throws -> Data {
        try checkNotNull(value, Data.self, at: node, key)
        let inner = key.map { node.appending($0) } ?? node
        switch strategies.data {
        case .deferredToData:
            return try with(value, at: inner) { try Data(from: self) }
        case .base64:
            guard case .string(let string) = value else {
                throw Self.typeMismatch(String.self, found: value, at: inner.path)
            }
            guard let data = Data(base64Encoded: string) else {
                throw DecodingError.dataCorrupted(DecodingError.Context(
                    codingPath: inner.path, debugDescription: "Encountered Data is not valid Base64."))
            }
            return data
        case .custom(let closure):
            return try with(value, at: inner) { try closure(self) }
        @unknown default:
            return try with(value, at: inner) { try Data(from: self) }
        }
    }

    private func unwrapURL(_ value: JSON, at node: CodingPathNode, _ key: (any CodingKey)?) throws -> URL {
        try checkNotNull(value, URL.self, at: node, key)
        let string = try unwrapString(value, at: node, key)
        guard let url = URL(string: string) else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: node.path(adding: key), debugDescription: "Invalid URL string."))
        }
        return url
    }

    /// A `Decimal` from the number's exact digits, not from a `Double`.
    private func unwrapDecimal(_ value: JSON, at node: CodingPathNode, _ key: (any CodingKey)?) throws -> Decimal {
        try checkNotNull(value, Decimal.self, at: node, key)
        guard case .number(let number) = value else {
            throw Self.typeMismatch(Decimal.self, found: value, at: node.path(adding: key))
        }
        guard let decimal = number.decimalValue else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: node.path(adding: key), debugDescription: "Number \(number.text) is not representable in Decimal."))
        }
        return decimal
    }

    /// `[String: Value]` with its keys as written, whatever the key strategy.
    private func unwrapDictionary(
        _ value: JSON, elementType: any Decodable.Type, at node: CodingPathNode, _ key: (any CodingKey)?
    ) throws -> [String: Any] {
        try checkNotNull(value, [String: Any].self, at: node, key)
        let inner = key.map { node.appending($0) } ?? node
        guard case .object(let object) = value else {
            throw Self.typeMismatch([String: Any].self, found: value, at: inner.path)
        }
        var result: [String: Any] = [:]
        result.reserveCapacity(object.count)
        for member in object.members {
            result[member.key] = try unwrap(member.value, as: elementType, at: inner, AnyCodingKey(member.key))
        }
        return result
    }
}
