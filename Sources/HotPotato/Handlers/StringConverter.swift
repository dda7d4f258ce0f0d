import Foundation

/// Collects the body and decodes it as text.
///
/// `StringConverter()` produces a `String`. The encoding is, in order:
/// 1. the `encoding` given to the initialiser, when there is one;
/// 2. the `charset` parameter of the `Content-Type`;
/// 3. a byte-order mark at the start of the body (UTF-8, UTF-16 or UTF-32);
/// 4. UTF-8.
///
/// A byte-order mark is never part of the text. Decoding is strict: bytes that are not valid in
/// the encoding fail with ``HotPotatoError/Code/undecodableText`` (for UTF-8 with the offset of
/// the first bad byte), and a `charset` HotPotato does not know fails with
/// ``HotPotatoError/Code/unsupportedCharset``. Either way the raw bytes travel in
/// ``HotPotatoError/intermediate`` — nothing is silently replaced or dropped.
///
/// Gating defaults: status `200...299`, any content type; at most 64 MiB. A response with no
/// body produces `""`.
///
/// ## Subclassing
///
/// Subclass with your own `Content` and override ``content(from:)-(String)`` to convert the text:
///
/// ```swift
/// final class CSVRows: StringConverter<[[String]]> {
///     override func content(from text: String) throws -> [[String]] {
///         text.split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
///     }
/// }
/// ```
open class StringConverter<Content>: Accumulator<Content> {
    /// The encoding that overrides the response's charset, or `nil` to follow the response.
    public let encoding: String.Encoding?

    /// Creates a string converter.
    /// - Parameters:
    ///   - encoding: An encoding that overrides the response's; `nil` (the default) follows the
    ///     `Content-Type` charset, then a byte-order mark, then UTF-8.
    ///   - maximumBodySize: The largest body accepted, in bytes. Default 64 MiB.
    ///   - acceptableStatusCodes: Statuses to accept; empty accepts all. Default `200...299`.
    ///   - acceptableContentTypes: Media types to accept; empty (the default) accepts all.
    public init(
        encoding: String.Encoding? = nil,
        maximumBodySize: Int64 = 64 * 1024 * 1024,
        acceptableStatusCodes: Set<Int> = Set(200...299),
        acceptableContentTypes: [MediaType] = []
    ) {
        self.encoding = encoding
        super.init(
            maximumBodySize: maximumBodySize,
            acceptableStatusCodes: acceptableStatusCodes,
            acceptableContentTypes: acceptableContentTypes)
    }

    /// Decodes the body (see ``decodeText(_:)``) and converts the text with
    /// ``content(from:)-(String)``.
    open override func content(from body: Data) throws -> Content {
        try content(from: decodeText(body))
    }

    /// Produces the content from the decoded text. `StringConverter<String>` returns the text; a
    /// subclass with another `Content` type overrides this.
    open func content(from text: String) throws -> Content {
        if let string = text as? Content { return string }
        throw HotPotatoError(
            .handlerFailed,
            reason: "\(type(of: self)) must override content(from:) to produce \(Content.self).",
            head: head)
    }

    /// Decodes `body` as text with the encoding chosen as described above.
    ///
    /// - Throws: ``HotPotatoError/Code/unsupportedCharset`` or
    ///   ``HotPotatoError/Code/undecodableText``, with the bytes in
    ///   ``HotPotatoError/intermediate``.
    public func decodeText(_ body: Data) throws -> String {
        try BodyText.decode(body, override: encoding, head: head)
    }
}

extension StringConverter where Content == String {
    // Disfavoured so that a subclass's `super.init(…)` picks the designated initialiser, while
    // a bare `StringConverter()` still infers its natural content type from this one.
    /// Creates a string converter whose content is the decoded `String`.
    /// - Parameters:
    ///   - encoding: An encoding that overrides the response's; `nil` (the default) follows the
    ///     `Content-Type` charset, then a byte-order mark, then UTF-8.
    ///   - maximumBodySize: The largest body accepted, in bytes. Default 64 MiB.
    ///   - acceptableStatusCodes: Statuses to accept; empty accepts all. Default `200...299`.
    ///   - acceptableContentTypes: Media types to accept; empty (the default) accepts all.
    @_disfavoredOverload
    public convenience init(
        encoding: String.Encoding? = nil,
        maximumBodySize: Int64 = 64 * 1024 * 1024,
        acceptableStatusCodes: Set<Int> = Set(200...299),
        acceptableContentTypes: [MediaType] = []
    ) {
        self.init(
            forcing: encoding, limit: maximumBodySize, codes: acceptableStatusCodes,
            types: acceptableContentTypes)
    }
}

extension StringConverter {
    /// Forwards the `String` convenience initialiser to the designated one.
    fileprivate convenience init(forcing encoding: String.Encoding?, limit: Int64, codes: Set<Int>, types: [MediaType]) {
        self.init(
            encoding: encoding, maximumBodySize: limit, acceptableStatusCodes: codes,
            acceptableContentTypes: types)
    }
}
