import Foundation

/// What HotPotato's two `Decoder`s share: `JSONValueDecoder` decodes from a parsed ``JSON`` value,
/// `JSONTapeDecoder` from a body's bytes and their tape. Each names its values its own way
/// (``Ref``) and where they are (``Location``); everything `JSONDecoder` does with them — its
/// strategies, its special types, its errors — is written once, here.
protocol JSONDecodingEngine: Decoder, SingleValueDecodingContainer, AnyObject {
    /// How the engine refers to a value.
    associatedtype Ref
    /// How the engine knows where a value is, for coding paths: `JSONValueDecoder` keeps a
    /// ``CodingPathNode`` per level; `JSONTapeDecoder` needs only the value's tape entry, and
    /// works the path out from the tape when one is asked for.
    associatedtype Location

    var strategies: JSONDecodingStrategies { get }
    /// `strategies.usesDefaultKeys`, read without copying the strategies (and retaining what
    /// they hold), as a generic read of ``strategies`` does.
    var usesDefaultKeys: Bool { get }
    /// The value being decoded now.
    var current: Ref { get }
    /// Where it is.
    var location: Location { get }

    /// The coding path of `location`, with `key` after it when given.
    func path(_ location: Location, adding key: (any CodingKey)?) -> [any CodingKey]
    /// Where `ref` is: under `parent` at `key`, or at `parent` itself when `key` is `nil`.
    func location(of ref: Ref, at parent: Location, _ key: (any CodingKey)?) -> Location

    /// The value as a ``JSON`` leaf: strings, numbers, booleans and `null` as themselves; arrays
    /// and objects as empty ones (for what errors say about them).
    func leaf(_ ref: Ref) -> JSON
    /// The whole value.
    func materialize(_ ref: Ref) throws -> JSON
    /// Runs `body` with `ref` at `location` as the current value, then restores the current one.
    func with<R>(_ ref: Ref, at location: Location, _ body: () throws -> R) rethrows -> R
    /// The elements of an array, or `nil` when the value is not one.
    func elements(of ref: Ref) -> [Ref]?
    /// The members of an object, keys as written, each key once (by the duplicate-key policy), or
    /// `nil` when the value is not one.
    func members(of ref: Ref) throws -> [(key: String, value: Ref)]?
    /// Runs `body`, in which coding paths through the object `ref` name its keys as written (it
    /// is decoded as `[String: Value]`, whose keys are data), not as the key strategy converts
    /// them.
    func withKeysAsWritten<R>(in ref: Ref, _ body: () throws -> R) rethrows -> R
    /// A decoder of its own for `ref`.
    func subDecoder(_ ref: Ref, at location: Location) -> any Decoder
    /// `type` as an array HotPotato decodes itself, or `nil`: ``DecodableArrayTypes/lookUp(_:)``
    /// on the engine's own table. (A requirement, not a method of this protocol's extension: that
    /// would stay generic over the engine, since `T` is, and reach the table through the protocol,
    /// 0.8 % more instructions decoding the benchmark documents.)
    func decodableArray<T>(_ type: T.Type) -> (any DecodableArray.Type)?
    /// Converted keys, by the key in the document (`.convertFromSnakeCase`), kept across the
    /// objects of a decoding (see ``convertedKeys(of:at:)``).
    var convertedKeys: [JSONMemberName: String] { get set }
    /// Whether `ref` is an array.
    func isArray(_ ref: Ref) -> Bool
    /// Whether `ref` is `null`.
    func isNull(_ ref: Ref) -> Bool
    /// How an unkeyed container walks an array's elements.
    associatedtype ArrayCursor: JSONArrayCursor where ArrayCursor.Ref == Ref
    /// A cursor at the first element of the array at `ref` (which ``isArray(_:)``).
    func arrayCursor(_ ref: Ref) -> ArrayCursor
    /// Stops the process if what the engine reads is gone (``JSONDecodingScope/check()``);
    /// containers call it before they read.
    func checkScope()
    /// The array at `ref` (which ``isArray(_:)``) decoded as `type`, which is `T`: returned as
    /// itself rather than as `Any`, which would box the array and copy it out again.
    func decodeArray<T>(_ ref: Ref, as type: any DecodableArray.Type, at location: Location, returning: T.Type) throws -> T
    /// The nearest `Double` to `ref` when it is a number, without going through a ``JSON`` leaf.
    func numberAsDouble(_ ref: Ref) -> Double?
    /// The value of `ref` when it is an integer number that fits an `Int64`.
    func numberAsInt64(_ ref: Ref) -> Int64?
}

/// `[String: Value]`, which `JSONDecoder` exempts from its key decoding strategy: its keys are
/// data, not property names.
private protocol StringKeyedDictionary {
    static var elementType: any Decodable.Type { get }
}

extension Dictionary: StringKeyedDictionary where Key == String, Value: Decodable {
    fileprivate static var elementType: any Decodable.Type { Value.self }
}

extension JSONDecodingEngine {
    /// Decodes `type` from `ref` found at `key` under `site` (or at `site` itself), with
    /// `JSONDecoder`'s special cases: `Date`, `Data`, `URL`, `Decimal` and `[String: Value]`.
    @inline(__always)
    func unwrap<T: Decodable>(_ ref: Ref, as type: T.Type, at site: Location, _ key: (any CodingKey)?) throws -> T {
        if T.self == String.self { return try unwrapString(leaf(ref), at: site, key) as! T }
        if T.self == Double.self { return try unwrapDouble(ref, at: site, key) as! T }
        if T.self == Int.self { return try unwrapInt(ref, at: site, key) as! T }
        if T.self == Bool.self { return try unwrapBool(leaf(ref), at: site, key) as! T }
        if T.self == JSON.self { return try materialize(ref) as! T }
        if T.self == Date.self { return try unwrapDate(ref, at: site, key) as! T }
        if T.self == Data.self { return try unwrapData(ref, at: site, key) as! T }
        if T.self == URL.self { return try unwrapURL(ref, at: site, key) as! T }
        if T.self == Decimal.self { return try unwrapDecimal(ref, at: site, key) as! T }
        if let array = decodableArray(T.self) {
            return try unwrapArray(ref, as: array, at: site, key, returning: T.self)
        }
        if !usesDefaultKeys, let dictionary = T.self as? any StringKeyedDictionary.Type {
            return try unwrapDictionary(ref, elementType: dictionary.elementType, at: site, key) as! T
        }
        let inner = location(of: ref, at: site, key)
        return try with(ref, at: inner) { try T(from: self) }
    }

    /// Whether ``unwrap(_:as:at:_:)`` decodes `type` with `T(from:)` and nothing else: it is none
    /// of the types it treats itself. Decoding an array of such values asks once, not per element.
    func decodesThroughInit<T: Decodable>(_ type: T.Type) -> Bool {
        if T.self == String.self || T.self == Double.self || T.self == Int.self || T.self == Bool.self || T.self == JSON.self
            || T.self == Date.self || T.self == Data.self || T.self == URL.self || T.self == Decimal.self {
            return false
        }
        if decodableArray(T.self) != nil { return false }
        if !usesDefaultKeys, T.self is any StringKeyedDictionary.Type { return false }
        return true
    }

    /// Converted key → position (or entry) of an object's members under the key strategy, for
    /// the object at `location`; the first of two keys that convert alike wins, as in
    /// `JSONDecoder`.
    func convertedKeys(of members: [(key: String, value: Int)], at location: Location) -> [JSONMemberName: Int] {
        var cache = convertedKeys
        defer { convertedKeys = cache }
        return JSONKeyConversion.convert(members, strategy: strategies.keys, at: { self.path(location, adding: nil) }, cache: &cache)
    }

    /// The error for asking the current value for a container it cannot give: `keyed` or not.
    func containerError(keyed: Bool) -> DecodingError {
        JSONDecodingErrors.notAContainer(keyed: keyed, found: leaf(current), at: path(location, adding: nil))
    }

    // MARK: - Leaves

    func checkNotNull(_ value: JSON, _ type: Any.Type, at site: Location, _ key: (any CodingKey)?) throws {
        if case .null = value {
            throw DecodingError.valueNotFound(type, DecodingError.Context(
                codingPath: path(site, adding: key), debugDescription: "Cannot get value of type \(type) -- found null value instead"))
        }
    }

    func unwrapBool(_ value: JSON, at site: Location, _ key: (any CodingKey)?) throws -> Bool {
        guard case .bool(let bool) = value else {
            try checkNotNull(value, Bool.self, at: site, key)
            throw JSONDecodingErrors.typeMismatch(Bool.self, found: value, at: path(site, adding: key))
        }
        return bool
    }

    func unwrapString(_ value: JSON, at site: Location, _ key: (any CodingKey)?) throws -> String {
        guard case .string(let string) = value else {
            try checkNotNull(value, String.self, at: site, key)
            throw JSONDecodingErrors.typeMismatch(String.self, found: value, at: path(site, adding: key))
        }
        return string
    }

    /// An integer of type `T` with exactly the number's value; `JSONDecoder` accepts `34.0` and
    /// `3.4e1` for 34, and so does this.
    func unwrapInteger<T: FixedWidthInteger>(_ value: JSON, as type: T.Type, at site: Location, _ key: (any CodingKey)?) throws -> T {
        guard case .number(let number) = value else {
            try checkNotNull(value, type, at: site, key)
            throw JSONDecodingErrors.typeMismatch(type, found: value, at: path(site, adding: key))
        }
        if case .integer(let integer) = number.storage, let exact = T(exactly: integer) { return exact }
        if let exact = JSONDecodingErrors.integer(number, as: type) { return exact }
        throw DecodingError.dataCorrupted(DecodingError.Context(
            codingPath: path(site, adding: key), debugDescription: "Parsed JSON number <\(number.text)> does not fit in \(type)."))
    }

    func unwrapFloatingPoint<T: BinaryFloatingPoint & LosslessStringConvertible>(
        _ value: JSON, as type: T.Type, at site: Location, _ key: (any CodingKey)?
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
                codingPath: path(site, adding: key), debugDescription: "Number \(number.text) is not representable in \(type)."))
        case .string(let string):
            if case .convertFromString(let positiveInfinity, let negativeInfinity, let nan) = strategies.nonConformingFloats {
                if string == positiveInfinity { return .infinity }
                if string == negativeInfinity { return -.infinity }
                if string == nan { return .nan }
            }
        default:
            try checkNotNull(value, type, at: site, key)
        }
        throw JSONDecodingErrors.typeMismatch(type, found: value, at: path(site, adding: key))
    }

    /// A `Double`, straight from the number when it is an ordinary one.
    @inline(__always)
    func unwrapDouble(_ ref: Ref, at site: Location, _ key: (any CodingKey)?) throws -> Double {
        if let value = numberAsDouble(ref), value.isFinite, value != 0 { return value }
        return try unwrapFloatingPoint(leaf(ref), as: Double.self, at: site, key)
    }

    /// An `Int`, straight from the number when it is an integer that fits.
    @inline(__always)
    func unwrapInt(_ ref: Ref, at site: Location, _ key: (any CodingKey)?) throws -> Int {
        if let value = numberAsInt64(ref), let exact = Int(exactly: value) { return exact }
        return try unwrapInteger(leaf(ref), as: Int.self, at: site, key)
    }

    // MARK: - Foundation's types

    private func unwrapDate(_ ref: Ref, at site: Location, _ key: (any CodingKey)?) throws -> Date {
        let value = leaf(ref)
        try checkNotNull(value, Date.self, at: site, key)
        let inner = location(of: ref, at: site, key)
        switch strategies.dates {
        case .deferredToDate:
            return try with(ref, at: inner) { try Date(from: self) }
        case .secondsSince1970:
            return Date(timeIntervalSince1970: try unwrapFloatingPoint(value, as: Double.self, at: site, key))
        case .millisecondsSince1970:
            return Date(timeIntervalSince1970: try unwrapFloatingPoint(value, as: Double.self, at: site, key) / 1000)
        case .iso8601:
            let string = try unwrapString(value, at: site, key)
            guard let date = try? Date.ISO8601FormatStyle().parse(string) else {
                throw DecodingError.dataCorrupted(DecodingError.Context(
                    codingPath: path(inner, adding: nil), debugDescription: "Expected date string to be ISO8601-formatted."))
            }
            return date
        #if canImport(Darwin)
        case .formatted(let formatter):
            let string = try unwrapString(value, at: site, key)
            guard let date = formatter.date(from: string) else {
                throw DecodingError.dataCorrupted(DecodingError.Context(
                    codingPath: path(inner, adding: nil), debugDescription: "Date string does not match format expected by formatter."))
            }
            return date
        #endif
        case .custom(let closure):
            return try with(ref, at: inner) { try closure(self) }
        @unknown default:
            return try with(ref, at: inner) { try Date(from: self) }
        }
    }

    private func unwrapData(_ ref: Ref, at site: Location, _ key: (any CodingKey)?) throws -> Data {
        let value = leaf(ref)
        try checkNotNull(value, Data.self, at: site, key)
        let inner = location(of: ref, at: site, key)
        switch strategies.data {
        case .deferredToData:
            return try with(ref, at: inner) { try Data(from: self) }
        case .base64:
            guard case .string(let string) = value else {
                throw JSONDecodingErrors.typeMismatch(String.self, found: value, at: path(inner, adding: nil))
            }
            guard let data = Data(base64Encoded: string) else {
                throw DecodingError.dataCorrupted(DecodingError.Context(
                    codingPath: path(inner, adding: nil), debugDescription: "Encountered Data is not valid Base64."))
            }
            return data
        case .custom(let closure):
            return try with(ref, at: inner) { try closure(self) }
        @unknown default:
            return try with(ref, at: inner) { try Data(from: self) }
        }
    }

    private func unwrapURL(_ ref: Ref, at site: Location, _ key: (any CodingKey)?) throws -> URL {
        let value = leaf(ref)
        try checkNotNull(value, URL.self, at: site, key)
        let string = try unwrapString(value, at: site, key)
        guard let url = URL(string: string) else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: path(site, adding: key), debugDescription: "Invalid URL string."))
        }
        return url
    }

    /// A `Decimal` from the number's exact digits, not from a `Double`.
    private func unwrapDecimal(_ ref: Ref, at site: Location, _ key: (any CodingKey)?) throws -> Decimal {
        let value = leaf(ref)
        try checkNotNull(value, Decimal.self, at: site, key)
        guard case .number(let number) = value else {
            throw JSONDecodingErrors.typeMismatch(Decimal.self, found: value, at: path(site, adding: key))
        }
        guard let decimal = number.decimalValue else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: path(site, adding: key), debugDescription: "Number \(number.text) is not representable in Decimal."))
        }
        return decimal
    }

    // MARK: - Collections

    /// An array of `type` from `ref`, with `JSONDecoder`'s errors for what is not an array.
    private func unwrapArray<T>(
        _ ref: Ref, as type: any DecodableArray.Type, at site: Location, _ key: (any CodingKey)?, returning: T.Type
    ) throws -> T {
        let inner = location(of: ref, at: site, key)
        guard isArray(ref) else {
            throw JSONDecodingErrors.notAContainer(keyed: false, found: leaf(ref), at: path(inner, adding: nil))
        }
        return try decodeArray(ref, as: type, at: inner, returning: T.self)
    }

    /// `[String: Value]` with its keys as written, whatever the key strategy.
    private func unwrapDictionary(
        _ ref: Ref, elementType: any Decodable.Type, at site: Location, _ key: (any CodingKey)?
    ) throws -> [String: Any] {
        let value = leaf(ref)
        try checkNotNull(value, [String: Any].self, at: site, key)
        let inner = location(of: ref, at: site, key)
        guard let members = try members(of: ref) else {
            throw JSONDecodingErrors.typeMismatch([String: Any].self, found: value, at: path(inner, adding: nil))
        }
        var result: [String: Any] = [:]
        result.reserveCapacity(members.count)
        try withKeysAsWritten(in: ref) {
            for member in members {
                result[member.key] = try unwrap(member.value, as: elementType, at: inner, AnyCodingKey(member.key))
            }
        }
        return result
    }

    // MARK: - The single-value container

    func decodeNil() -> Bool {
        if case .null = leaf(current) { return true }
        return false
    }

    func decode(_ type: Bool.Type) throws -> Bool { try unwrapBool(leaf(current), at: location, nil) }
    func decode(_ type: String.Type) throws -> String { try unwrapString(leaf(current), at: location, nil) }
    func decode(_ type: Double.Type) throws -> Double { try unwrapDouble(current, at: location, nil) }
    func decode(_ type: Float.Type) throws -> Float { try unwrapFloatingPoint(leaf(current), as: type, at: location, nil) }
    func decode(_ type: Int.Type) throws -> Int { try unwrapInt(current, at: location, nil) }
    func decode(_ type: Int8.Type) throws -> Int8 { try unwrapInteger(leaf(current), as: type, at: location, nil) }
    func decode(_ type: Int16.Type) throws -> Int16 { try unwrapInteger(leaf(current), as: type, at: location, nil) }
    func decode(_ type: Int32.Type) throws -> Int32 { try unwrapInteger(leaf(current), as: type, at: location, nil) }
    func decode(_ type: Int64.Type) throws -> Int64 { try unwrapInteger(leaf(current), as: type, at: location, nil) }
    func decode(_ type: UInt.Type) throws -> UInt { try unwrapInteger(leaf(current), as: type, at: location, nil) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try unwrapInteger(leaf(current), as: type, at: location, nil) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try unwrapInteger(leaf(current), as: type, at: location, nil) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try unwrapInteger(leaf(current), as: type, at: location, nil) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try unwrapInteger(leaf(current), as: type, at: location, nil) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try unwrap(current, as: type, at: location, nil)
    }
}

/// The errors both decoders throw, worded as `JSONDecoder` words them.
enum JSONDecodingErrors {
    static func typeMismatch(_ type: Any.Type, found value: JSON, at path: [any CodingKey]) -> DecodingError {
        DecodingError.typeMismatch(type, DecodingError.Context(
            codingPath: path, debugDescription: "Expected to decode \(type) but found \(describe(value)) instead."))
    }

    /// The error for a keyed (`[String: Any]`) or unkeyed (`[Any]`) container asked of `value`,
    /// which is not an object or not an array.
    static func notAContainer(keyed: Bool, found value: JSON, at path: [any CodingKey]) -> DecodingError {
        let type: Any.Type = keyed ? [String: Any].self : [Any].self
        if case .null = value {
            return DecodingError.valueNotFound(type, DecodingError.Context(
                codingPath: path,
                debugDescription: "Cannot get \(keyed ? "keyed" : "unkeyed") decoding container -- found null value instead"))
        }
        return typeMismatch(type, found: value, at: path)
    }

    static func describe(_ value: JSON) -> String {
        switch value {
        case .null: return "null"
        case .bool: return "bool"
        case .number: return "number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "a dictionary"
        }
    }

    /// The number as `T`, exactly, when it is an integer that fits.
    static func integer<T: FixedWidthInteger>(_ number: JSON.Number, as type: T.Type) -> T? {
        if let integer = number.int64Value { return T(exactly: integer) }
        let normalized = number.normalized
        // Beyond Int64: only unsigned or wider types can hold it.
        guard normalized.exponent >= 0, normalized.digits.count + normalized.exponent <= 40 else { return nil }
        let digits = String(decoding: normalized.digits, as: UTF8.self) + String(repeating: "0", count: normalized.exponent)
        return T((normalized.isNegative ? "-" : "") + digits)
    }
}
