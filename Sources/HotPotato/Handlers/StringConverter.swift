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
/// Gating defaults: ``ResponseGate/successful``; at most 64 MiB. A response with no
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

    // Disfavoured, so that a bare `StringConverter()` means `StringConverter<String>` (the
    // convenience initialiser below) in every expression; labelled `accepting:` so that a
    // subclass keeping the `String` content can call it (see ``SelectiveDiscarder``).
    /// Creates a string converter: the designated initialiser, for subclasses, which override
    /// ``content(from:)-(String)``.
    /// - Parameters:
    ///   - encoding: An encoding that overrides the response's; `nil` (the default) follows the
    ///     `Content-Type` charset, then a byte-order mark, then UTF-8.
    ///   - gate: The statuses and content types to accept. Default ``ResponseGate/successful``.
    ///   - maximumBodySize: The largest body accepted, in bytes. Default 64 MiB.
    @_disfavoredOverload
    public init(
        encoding: String.Encoding? = nil,
        accepting gate: ResponseGate = .successful,
        maximumBodySize: Int64 = HandlerDefaults.maximumBodySize
    ) {
        self.encoding = encoding
        super.init(accepting: gate, maximumBodySize: maximumBodySize)
    }

    /// Whether ``Accumulator/receive(_:)`` may be lent chunks an engine still owns: `true` for a
    /// `StringConverter` itself, which copies every chunk it is given (see ``ChunkBorrowing``).
    open override var receivesBorrowedChunks: Bool { type(of: self) == StringConverter<Content>.self }

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
    /// Creates a string converter whose content is the decoded `String`.
    /// - Parameters:
    ///   - encoding: An encoding that overrides the response's; `nil` (the default) follows the
    ///     `Content-Type` charset, then a byte-order mark, then UTF-8.
    ///   - gate: The statuses and content types to accept. Default ``ResponseGate/successful``.
    ///   - maximumBodySize: The largest body accepted, in bytes. Default 64 MiB.
    public convenience init(
        encoding: String.Encoding? = nil,
        gate: ResponseGate = .successful,
        maximumBodySize: Int64 = HandlerDefaults.maximumBodySize
    ) {
        self.init(encoding: encoding, accepting: gate, maximumBodySize: maximumBodySize)
    }
}
