import Foundation

/// Accepts or rejects a response by its status code and content type, and discards its body.
///
/// Every HotPotato handler is a `SelectiveDiscarder`: the gate runs once, at the head, before
/// any byte is parsed or written. Used on its own (`SelectiveDiscarder()`, content `Void`) it
/// checks the response and throws the body away — `discardResponseContent()` in the request API.
///
/// ## Gating and size
///
/// ``gate`` says which statuses and content types are accepted (default
/// ``ResponseGate/successful``: `200...299`, any type); a rejection keeps a bounded copy of the
/// body for the error. ``maximumBodySize`` caps the body (none by default for a discarder and the
/// writers, 64 MiB for the handlers that hold the body in memory): a `Content-Length` above it is
/// refused at the head, before any byte is read, and a body that grows past it stops the transfer
/// on the chunk that crosses it, both with ``HotPotatoError/Code/bodyTooLarge``.
///
/// ## Subclassing
///
/// Override ``validate(_:)`` to gate differently, and ``receive(_:)``, ``finish()`` and
/// ``cleanUp()`` to handle the body; call `super` from ``prepare(for:)`` and ``receive(_:)`` so
/// the gate, the size limit and ``head`` stay in place.
///
/// A bare `SelectiveDiscarder()`, `Accumulator()`, `StringConverter()` or `JSONParser()` always
/// means the handler's natural content type (`Void`, `Data`, `String`, ``JSON``). The designated
/// initialiser of each class, which subclasses inherit and call, names the gate `accepting:`
/// (``init(accepting:)`` here): a subclass that keeps the natural content type calls
/// `super.init(accepting: …)` from an initialiser of its own, since `super.init(gate: …)` or
/// `super.init()` names the natural type's convenience initialiser.
///
/// ```swift
/// /// Accepts any status; rejects only server errors.
/// final class LenientDiscarder: SelectiveDiscarder<Void> {
///     override func validate(_ head: ResponseHead) throws {
///         if head.status >= 500 { try super.validate(head) }
///     }
/// }
/// ```
open class SelectiveDiscarder<Content>: ContentHandler, ChunkBorrowing {
    /// The status codes and content types accepted.
    public var gate: ResponseGate
    /// The largest body accepted, in bytes; `Int64.max` accepts any.
    public var maximumBodySize: Int64
    /// The head of the response being handled, set by ``prepare(for:)``.
    public private(set) var head: ResponseHead?
    /// Body bytes received so far, as counted against ``maximumBodySize``.
    public private(set) var bodyBytesReceived: Int64 = 0
    /// Bytes the content already holds before this response's body (a resumed file's), counted
    /// against ``maximumBodySize`` too.
    var bodyOffset: Int64 = 0

    /// The status codes accepted (the ``gate``'s); an empty set accepts every status.
    public var acceptableStatusCodes: Set<Int> {
        get { gate.statusCodes }
        set { gate.statusCodes = newValue }
    }

    /// The media types accepted (the ``gate``'s); an empty list accepts every type (and no type).
    public var acceptableContentTypes: [MediaType] {
        get { gate.contentTypes }
        set { gate.contentTypes = newValue }
    }

    // Disfavoured, so that a bare `SelectiveDiscarder()` means `SelectiveDiscarder<Void>` (the
    // convenience initialiser below) in every expression. Its label differs from the convenience
    // initialiser's `gate:` so that a subclass keeping the `Void` content can call it.
    /// Creates a handler with a gate and no size limit (set ``maximumBodySize`` to add one): the
    /// designated initialiser, for subclasses (`SelectiveDiscarder()` makes a discarder).
    /// - Parameter gate: The statuses and content types to accept. Default
    ///   ``ResponseGate/successful``.
    @_disfavoredOverload
    public init(accepting gate: ResponseGate = .successful) {
        self.gate = gate
        maximumBodySize = .max
    }

    /// Whether ``receive(_:)`` may be lent chunks an engine still owns (see ``ChunkBorrowing``).
    ///
    /// `true` for a `SelectiveDiscarder` itself, which keeps nothing. Each of HotPotato's handlers
    /// says the same of its own class only: a subclass might keep its chunks, so it gets copies
    /// unless it overrides this to return `true`.
    open var receivesBorrowedChunks: Bool { type(of: self) == SelectiveDiscarder<Content>.self }

    /// Whether the body goes through this handler in bulk — written, hashed, counted, passed on —
    /// rather than kept whole or held open a long time: the libcurl engine then reads it in large
    /// reads (see ``HandlerCapabilities/prefersLargeReads``). `true` for the family's streaming
    /// members and for a subclass of `SelectiveDiscarder` of yours; an ``Accumulator`` (and so
    /// every in-memory handler) and an ``EventStreamParser`` say `false`. Internal: a subclass
    /// outside HotPotato inherits its superclass's answer.
    var readsInBulk: Bool { true }

    /// Records the head, runs ``validate(_:)``, and refuses a declared length over
    /// ``maximumBodySize``. Subclasses that override it call `super` first.
    open func prepare(for head: ResponseHead) throws {
        self.head = head
        bodyBytesReceived = 0
        try validate(head)
        try checkDeclaredLength()
    }

    /// Throws a rejection when the ``gate`` does not accept the response.
    ///
    /// Override to gate differently; call `super` to keep the standard checks.
    open func validate(_ head: ResponseHead) throws {
        try gate.check(head)
    }

    /// Counts the chunk against ``maximumBodySize`` and discards it. Subclasses override it to
    /// keep or write the body, calling `super` (or ``countBody(_:)``) first.
    open func receive(_ chunk: Data) throws {
        try countBody(chunk)
    }

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

    /// Throws ``HotPotatoError/Code/bodyTooLarge`` when the head declares more body than
    /// ``maximumBodySize`` allows (with what the content already holds).
    public func checkDeclaredLength() throws(HotPotatoError) {
        guard let head, !head.hasNoBody, let declared = head.contentLength else { return }
        let (total, overflow) = declared.addingReportingOverflow(bodyOffset)
        guard overflow || total > maximumBodySize else { return }
        throw HotPotatoError.bodyTooLarge(
            "The declared Content-Length of \(declared) bytes"
                + (bodyOffset > 0 ? " after the \(bodyOffset) bytes already held" : "")
                + " exceeds the limit of \(maximumBodySize) bytes.",
            limit: maximumBodySize, byteCount: overflow ? .max : total, byteOffset: nil, head: head)
    }

    /// Counts `chunk` as received; throws ``HotPotatoError/Code/bodyTooLarge`` when it takes the
    /// body past ``maximumBodySize``.
    public func countBody(_ chunk: Data) throws(HotPotatoError) {
        let before = bodyBytesReceived
        bodyBytesReceived += Int64(chunk.count)
        let (total, overflow) = bodyBytesReceived.addingReportingOverflow(bodyOffset)
        guard overflow || total > maximumBodySize else { return }
        throw HotPotatoError.bodyTooLarge(
            "The body exceeds the limit of \(maximumBodySize) bytes.",
            limit: maximumBodySize, byteCount: overflow ? .max : total, byteOffset: before, head: head)
    }
}

extension SelectiveDiscarder where Content == Void {
    /// Creates a discarder that checks the response and throws its body away.
    /// - Parameters:
    ///   - gate: The statuses and content types to accept. Default ``ResponseGate/successful``.
    ///   - maximumBodySize: The largest body accepted, in bytes. Default: no limit.
    public convenience init(gate: ResponseGate = .successful, maximumBodySize: Int64 = .max) {
        self.init(accepting: gate)
        self.maximumBodySize = max(0, maximumBodySize)
    }
}
