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
        } else if let value = try? container.decode([String: JSON].self) {
            self = .object(value)
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
        case .object(let value): try container.encode(value)
        }
    }
}
