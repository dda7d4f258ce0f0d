extension JSON: Codable {
    /// Decodes any JSON value from a decoder's single-value container.
    ///
    /// Use it to keep part of a `Decodable` type as free-form JSON:
    /// `struct Event: Decodable { let type: String; let payload: JSON }`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .number(Number(value))
        } else if let value = try? container.decode(Double.self), let number = Number(value) {
            self = .number(number)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSON].self) {
            self = .array(value)
        } else if let object = try? decoder.container(keyedBy: AnyCodingKey.self) {
            var members: [Object.Member] = []
            for key in object.allKeys {
                members.append(Object.Member(key: key.stringValue, value: try object.decode(JSON.self, forKey: key)))
            }
            self = .object(Object(members))
        } else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "The value is not a JSON value.")
        }
    }

    /// Encodes the value into an encoder's single-value container.
    ///
    /// Numbers are encoded as `Int64` when they are integers that fit, otherwise as the nearest
    /// `Double`; use ``serialized(pretty:)`` to write the exact digits.
    public func encode(to encoder: any Encoder) throws {
        if case .object = self {} else {
            try encodeSingleValue(to: encoder)
            return
        }
        if case .object(let object) = self {
            var members = encoder.container(keyedBy: AnyCodingKey.self)
            let (keys, values) = object.parts
            for (key, value) in zip(keys.keys, values) {
                try members.encode(value, forKey: AnyCodingKey(key))
            }
        }
    }

    private func encodeSingleValue(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            if let integer = value.int64Value {
                try container.encode(integer)
            } else {
                try container.encode(value.doubleValue)
            }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object:
            break
        }
    }
}

/// A coding key made from any string or integer.
struct AnyCodingKey: CodingKey, Hashable {
    let stringValue: String
    let intValue: Int?

    init(_ string: String) {
        stringValue = string
        intValue = nil
    }

    init(_ index: Int) {
        stringValue = String(index)
        intValue = index
    }

    init(_ key: some CodingKey) {
        stringValue = key.stringValue
        intValue = key.intValue
    }

    init?(stringValue: String) { self.init(stringValue) }
    init?(intValue: Int) { self.init(intValue) }
}
