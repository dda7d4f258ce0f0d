import Foundation

/// Accepts or rejects a response by its status code and content type, and discards its body.
///
/// Every HotPotato handler is a `SelectiveDiscarder`: the gate runs once, at the head, before
/// any byte is parsed or written. Used on its own (`SelectiveDiscarder()`, content `Void`) it
/// checks the response and throws the body away — `discardResponseContent()` in the request API.
///
/// ## Gating
///
/// - ``acceptableStatusCodes``: the status must be one of them. Default: `200...299`.
/// - ``acceptableContentTypes``: the `Content-Type` must match one of them (see
///   ``MediaType/matches(_:)``: case-insensitive, parameters ignored, `type/*`, `*/*`,
///   structured suffixes). Default: any. When the list is not empty, a missing or malformed
///   `Content-Type` is rejected too — except on a response with no body (`204`, `205`, `304`,
///   `HEAD`, `Content-Length: 0`), where there is no content to type.
///
/// An empty set or list accepts everything. A rejection throws a ``HotPotatoError`` with code
/// ``HotPotatoError/Code/unacceptableStatus``, ``HotPotatoError/Code/unacceptableContentType``,
/// ``HotPotatoError/Code/missingContentType`` or ``HotPotatoError/Code/malformedContentType``;
/// the driver then attaches a bounded copy of the body the server sent.
///
/// ## Subclassing
///
/// Override ``validate(_:)`` to gate differently, and ``receive(_:)``, ``finish()`` and
/// ``cleanUp()`` to handle the body; call `super` from ``prepare(for:)`` so the gate and
/// ``head`` stay in place.
///
/// ```swift
/// /// Accepts any status; rejects only server errors.
/// final class LenientDiscarder: SelectiveDiscarder<Void> {
///     override func validate(_ head: ResponseHead) throws {
///         if head.status >= 500 { try super.validate(head) }
///     }
/// }
/// ```
open class SelectiveDiscarder<Content>: ContentHandler {
    /// The status codes accepted; an empty set accepts every status.
    public var acceptableStatusCodes: Set<Int>
    /// The media types accepted; an empty list accepts every type (and no type).
    public var acceptableContentTypes: [MediaType]
    /// The head of the response being handled, set by ``prepare(for:)``.
    public private(set) var head: ResponseHead?

    /// Whether this handler is one of HotPotato's own classes, not a subclass: their `receive(_:)`
    /// never keeps the chunk it is given, so an engine may lend it bytes it still owns instead of a
    /// copy. A subclass might keep its chunks, so it always gets a copy of its own.
    var receivesBorrowedChunks: Bool

    /// Creates a handler that accepts the given status codes and content types.
    /// - Parameters:
    ///   - acceptableStatusCodes: Statuses to accept; empty accepts all. Default `200...299`.
    ///   - acceptableContentTypes: Media types to accept; empty (the default) accepts all.
    public init(
        acceptableStatusCodes: Set<Int> = Set(200...299),
        acceptableContentTypes: [MediaType] = []
    ) {
        self.acceptableStatusCodes = acceptableStatusCodes
        self.acceptableContentTypes = acceptableContentTypes
        let exact = ObjectIdentifier(Swift.type(of: self))
        receivesBorrowedChunks = [
            ObjectIdentifier(SelectiveDiscarder<Content>.self), ObjectIdentifier(Accumulator<Content>.self),
            ObjectIdentifier(StringConverter<Content>.self), ObjectIdentifier(JSONParser<Content>.self),
            ObjectIdentifier(FileWriter.self), ObjectIdentifier(StreamWriter.self),
        ].contains(exact)
    }

    /// Records the head and runs ``validate(_:)``. Subclasses that override it call `super` first.
    open func prepare(for head: ResponseHead) throws {
        self.head = head
        try validate(head)
    }

    /// Throws a rejection when the status or the content type is not acceptable.
    ///
    /// Override to gate differently; call `super` to keep the standard checks.
    open func validate(_ head: ResponseHead) throws {
        if !acceptableStatusCodes.isEmpty && !acceptableStatusCodes.contains(head.status) {
            throw HotPotatoError(
                .unacceptableStatus,
                reason: "HTTP \(head.status) \(head.reasonPhrase) is not an acceptable status "
                    + "(accepted: \(StatusCodeDescription.describe(acceptableStatusCodes))).",
                head: head)
        }
        guard !acceptableContentTypes.isEmpty, !head.hasEmptyBody else { return }
        let accepted = acceptableContentTypes.map(\.description).joined(separator: ", ")
        guard let header = head.contentTypeHeader else {
            throw HotPotatoError(
                .missingContentType,
                reason: "The response has no Content-Type (accepted: \(accepted)).", head: head)
        }
        guard let contentType = MediaType(parsing: header) else {
            throw HotPotatoError(
                .malformedContentType,
                reason: "The Content-Type \"\(header)\" is not a valid media type (accepted: \(accepted)).",
                head: head)
        }
        if !acceptableContentTypes.contains(where: { $0.matches(contentType) }) {
            throw HotPotatoError(
                .unacceptableContentType,
                reason: "The Content-Type \(contentType.essence) is not acceptable (accepted: \(accepted)).",
                head: head)
        }
    }

    /// Discards the chunk. Subclasses override it to keep or write the body.
    open func receive(_ chunk: Data) throws {}

    /// Produces the content. `SelectiveDiscarder<Void>` returns `()`; a subclass with another
    /// `Content` type must override it.
    open func finish() throws -> Content {
        if let nothing = () as? Content { return nothing }
        throw HotPotatoError(
            .handlerFailed,
            reason: "\(type(of: self)) must override finish() to produce \(Content.self).",
            head: head)
    }

    /// Does nothing: a discarder holds nothing. Subclasses release what they hold.
    open func cleanUp() {}
}

extension SelectiveDiscarder where Content == Void {
    // Disfavoured so that a subclass's `super.init(…)` picks the designated initialiser, while
    // a bare `SelectiveDiscarder()` still infers its natural content type from this one.
    /// Creates a discarder that checks the response and throws its body away.
    /// - Parameters:
    ///   - acceptableStatusCodes: Statuses to accept; empty accepts all. Default `200...299`.
    ///   - acceptableContentTypes: Media types to accept; empty (the default) accepts all.
    @_disfavoredOverload
    public convenience init(
        acceptableStatusCodes: Set<Int> = Set(200...299),
        acceptableContentTypes: [MediaType] = []
    ) {
        self.init(
            discardingWith: acceptableStatusCodes, acceptableContentTypes: acceptableContentTypes)
    }
}

extension SelectiveDiscarder {
    /// Forwards the `Void` convenience initialiser to the designated one.
    fileprivate convenience init(discardingWith codes: Set<Int>, acceptableContentTypes: [MediaType]) {
        self.init(acceptableStatusCodes: codes, acceptableContentTypes: acceptableContentTypes)
    }
}
