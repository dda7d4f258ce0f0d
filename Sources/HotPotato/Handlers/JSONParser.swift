import Foundation

/// Collects the body and parses it as JSON, into a ``JSON`` value or a `Decodable` type.
///
/// - `JSONParser()` produces a ``JSON`` value.
/// - `JSONParser(decoding: User.self, atKeyPath: "data", using: decoder)` decodes a `User`
///   from the value at the key path, with your `JSONDecoder` and its strategies.
///
/// The body is read as UTF-8 (RFC 8259), with a UTF-8 byte-order mark ignored. A body whose
/// `charset` or byte-order mark says UTF-16 or UTF-32 (or another known charset) is decoded to
/// text first; then a failure carries that text in ``HotPotatoError/intermediate``, otherwise the
/// raw bytes.
///
/// Errors: ``HotPotatoError/Code/invalidJSON``, ``HotPotatoError/Code/keyPathNotFound``,
/// ``HotPotatoError/Code/decodingFailed`` (with the `DecodingError` as
/// ``HotPotatoError/underlying``), ``HotPotatoError/Code/emptyBody`` — each with the intermediate
/// data.
///
/// Gating defaults: status `200...299`; content types `application/json` and
/// `application/*+json` (so `application/problem+json` counts); at most 64 MiB. An empty body
/// follows ``emptyBodyPolicy``; a response with no body by definition (`204`, `HEAD`) reads as
/// `null`.
///
/// Duplicate keys in an object: the last value wins.
///
/// ## Subclassing
///
/// Subclass with a domain type and override ``content(from:)-(JSON)``:
///
/// ```swift
/// final class UserParser: JSONParser<User> {
///     override func content(from json: JSON) throws -> User {
///         guard let name = json["name"]?.stringValue else {
///             throw HotPotatoError(.conversionFailed, reason: "No name.", head: head)
///         }
///         return User(name: name)
///     }
/// }
/// ```
open class JSONParser<Content>: Accumulator<Content> {
    /// What an empty body on a response that should have one reads as.
    public let emptyBodyPolicy: EmptyBodyPolicy
    /// The key path the content is taken from (`"data.user"`), or `nil` for the whole document.
    public let keyPath: String?
    private let decoding: DecodableMapping<Content>?

    /// Creates a parser whose content comes from ``content(from:)-(JSON)``; for subclasses.
    /// - Parameters:
    ///   - keyPath: The key path to take the content from; `nil` (the default) takes the whole
    ///     document.
    ///   - emptyBodyPolicy: What an empty body reads as; default ``EmptyBodyPolicy/fail``.
    ///   - maximumBodySize: The largest body accepted, in bytes. Default 64 MiB.
    ///   - acceptableStatusCodes: Statuses to accept; empty accepts all. Default `200...299`.
    ///   - acceptableContentTypes: Media types to accept; empty accepts all. Default
    ///     `application/json` and `application/*+json`.
    public init(
        atKeyPath keyPath: String? = nil,
        emptyBodyPolicy: EmptyBodyPolicy = .fail,
        maximumBodySize: Int64 = 64 * 1024 * 1024,
        acceptableStatusCodes: Set<Int> = Set(200...299),
        acceptableContentTypes: [MediaType] = [.json, .anyJSON]
    ) {
        self.keyPath = keyPath
        self.emptyBodyPolicy = emptyBodyPolicy
        self.decoding = nil
        super.init(
            maximumBodySize: maximumBodySize,
            acceptableStatusCodes: acceptableStatusCodes,
            acceptableContentTypes: acceptableContentTypes)
    }

    init(
        decoding: DecodableMapping<Content>,
        keyPath: String?,
        emptyBodyPolicy: EmptyBodyPolicy,
        maximumBodySize: Int64,
        acceptableStatusCodes: Set<Int>,
        acceptableContentTypes: [MediaType]
    ) {
        self.keyPath = keyPath
        self.emptyBodyPolicy = emptyBodyPolicy
        self.decoding = decoding
        super.init(
            maximumBodySize: maximumBodySize,
            acceptableStatusCodes: acceptableStatusCodes,
            acceptableContentTypes: acceptableContentTypes)
    }

    /// Parses the body, selects the value at ``keyPath``, and converts it: with the `Decodable`
    /// mapping when the parser was made with one, otherwise with ``content(from:)-(JSON)``.
    open override func content(from body: Data) throws -> Content {
        let document = try parseDocument(body)
        var value = document
        if let keyPath {
            guard let found = document[keyPath] else {
                var error = HotPotatoError(
                    .keyPathNotFound, reason: "The JSON has no value at the key path \"\(keyPath)\".",
                    head: head)
                error.keyPath = keyPath
                throw error
            }
            value = found
        }
        guard let decoding else { return try content(from: value) }
        do {
            return try decoding.decode(value)
        } catch let error as DecodingError {
            var failure = HotPotatoError(
                .decodingFailed,
                reason: "Decoding \(Content.self) from the JSON"
                    + (keyPath.map { " at \"\($0)\"" } ?? "") + " failed: \(DecodingErrorText.describe(error))",
                head: head, underlying: error)
            failure.keyPath = keyPath
            throw failure
        }
    }

    /// Produces the content from the parsed JSON (the value at ``keyPath``, when set).
    /// `JSONParser<JSON>` returns the value; a subclass with another `Content` type overrides
    /// this.
    open func content(from json: JSON) throws -> Content {
        if let value = json as? Content { return value }
        throw HotPotatoError(
            .handlerFailed,
            reason: "\(type(of: self)) must override content(from:) to produce \(Content.self).",
            head: head)
    }

    /// Parses a whole body into a ``JSON`` value, following the encoding and empty-body rules
    /// above.
    ///
    /// - Throws: ``HotPotatoError/Code/emptyBody``, ``HotPotatoError/Code/invalidJSON``, or a text
    ///   decoding error for a body in another charset.
    public func parseDocument(_ body: Data) throws -> JSON {
        if body.isEmpty {
            if head?.hasNoBody == true || emptyBodyPolicy == .null { return .null }
            throw HotPotatoError(.emptyBody, reason: "The response body is empty; JSON was expected.", head: head)
        }
        var utf8 = body
        var intermediate = IntermediateContent.bytes(body)
        let encoding = try BodyText.encoding(for: body, override: nil, head: head)
        if encoding != .utf8 {
            let text = try BodyText.decode(body, override: encoding, head: head)
            utf8 = Data(text.utf8)
            intermediate = .text(text)
        } else if let mark = TextEncodings.byteOrderMark(of: body), mark.encoding == .utf8 {
            utf8 = body.dropFirst(mark.length)
        }
        do {
            return try JSONBackend.parse(utf8)
        } catch {
            var failure = HotPotatoError(
                .invalidJSON, reason: "The body is not valid JSON: \(error.reason)", head: head,
                underlying: error.underlying)
            failure.byteOffset = error.byteOffset
            failure.intermediate = intermediate
            throw failure
        }
    }
}

extension JSONParser where Content == JSON {
    // Disfavoured so that a subclass's `super.init(…)` picks the designated initialiser, while
    // a bare `JSONParser()` still infers its natural content type from this one.
    /// Creates a parser whose content is the ``JSON`` value (at `keyPath`, when given).
    /// - Parameters:
    ///   - keyPath: The key path to take the value from; `nil` (the default) takes the whole
    ///     document.
    ///   - emptyBodyPolicy: What an empty body reads as; default ``EmptyBodyPolicy/fail``.
    ///   - maximumBodySize: The largest body accepted, in bytes. Default 64 MiB.
    ///   - acceptableStatusCodes: Statuses to accept; empty accepts all. Default `200...299`.
    ///   - acceptableContentTypes: Media types to accept; empty accepts all. Default
    ///     `application/json` and `application/*+json`.
    @_disfavoredOverload
    public convenience init(
        atKeyPath keyPath: String? = nil,
        emptyBodyPolicy: EmptyBodyPolicy = .fail,
        maximumBodySize: Int64 = 64 * 1024 * 1024,
        acceptableStatusCodes: Set<Int> = Set(200...299),
        acceptableContentTypes: [MediaType] = [.json, .anyJSON]
    ) {
        self.init(
            selecting: keyPath, policy: emptyBodyPolicy, limit: maximumBodySize,
            codes: acceptableStatusCodes, types: acceptableContentTypes)
    }
}

extension JSONParser where Content: Decodable {
    /// Creates a parser that decodes `type` from the JSON (at `keyPath`, when given) with your
    /// decoder — Moya's `map(_:atKeyPath:using:failsOnEmptyData:)`.
    ///
    /// An empty body reads as `null` under ``EmptyBodyPolicy/null`` (and on `204` or `HEAD`),
    /// which decodes into an `Optional` type.
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - keyPath: The key path to decode from; `nil` (the default) decodes the whole document.
    ///   - decoder: The decoder to use, with its strategies; default `JSONDecoder()`.
    ///   - emptyBodyPolicy: What an empty body reads as; default ``EmptyBodyPolicy/fail``.
    ///   - maximumBodySize: The largest body accepted, in bytes. Default 64 MiB.
    ///   - acceptableStatusCodes: Statuses to accept; empty accepts all. Default `200...299`.
    ///   - acceptableContentTypes: Media types to accept; empty accepts all. Default
    ///     `application/json` and `application/*+json`.
    public convenience init(
        decoding type: Content.Type,
        atKeyPath keyPath: String? = nil,
        using decoder: JSONDecoder = JSONDecoder(),
        emptyBodyPolicy: EmptyBodyPolicy = .fail,
        maximumBodySize: Int64 = 64 * 1024 * 1024,
        acceptableStatusCodes: Set<Int> = Set(200...299),
        acceptableContentTypes: [MediaType] = [.json, .anyJSON]
    ) {
        self.init(
            decoding: DecodableMapping(type, decoder: decoder), keyPath: keyPath,
            emptyBodyPolicy: emptyBodyPolicy, maximumBodySize: maximumBodySize,
            acceptableStatusCodes: acceptableStatusCodes, acceptableContentTypes: acceptableContentTypes)
    }
}

extension JSONParser {
    /// Forwards the ``JSON`` convenience initialiser to the designated one.
    fileprivate convenience init(
        selecting keyPath: String?, policy: EmptyBodyPolicy, limit: Int64, codes: Set<Int>, types: [MediaType]
    ) {
        self.init(
            atKeyPath: keyPath, emptyBodyPolicy: policy, maximumBodySize: limit,
            acceptableStatusCodes: codes, acceptableContentTypes: types)
    }
}
