import Foundation

/// Collects the whole body in memory, up to a maximum size, and hands it over as `Data`.
///
/// `Accumulator()` produces the body's `Data`. Memory is protected by
/// ``SelectiveDiscarder/maximumBodySize`` (64 MiB by default): a `Content-Length` above it is
/// refused at the head, before any byte is read, and a body that grows past it stops the transfer
/// on the chunk that crosses it. Both fail with ``HotPotatoError/Code/bodyTooLarge``. When `Content-Length` is known, the buffer is sized
/// once (up to ``maximumReservation``, 64 MiB; a longer body grows it as it arrives), so a body
/// costs its own size in memory and no more.
///
/// Gating defaults: status `200...299`, any content type. A response with no body (`204`, `HEAD`)
/// produces empty `Data`.
///
/// ## Subclassing
///
/// Subclass with your own `Content` and override ``content(from:)`` to convert the collected
/// bytes:
///
/// ```swift
/// final class LineCounter: Accumulator<Int> {
///     override func content(from body: Data) throws -> Int {
///         body.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
///     }
/// }
/// ```
///
/// A conversion that fails should throw a ``HotPotatoError`` carrying the bytes in
/// ``HotPotatoError/intermediate``; any other error is wrapped with code
/// ``HotPotatoError/Code/conversionFailed`` and the bytes attached.
open class Accumulator<Content>: SelectiveDiscarder<Content> {
    /// The bytes received so far; the whole body once ``finish()`` is called.
    public private(set) var body = Data()

    /// The most that a declared `Content-Length` reserves ahead of the body, in bytes: 64 MiB.
    /// A longer body (under a raised ``SelectiveDiscarder/maximumBodySize``) grows its buffer as
    /// it arrives.
    public static var maximumReservation: Int64 { HandlerDefaults.maximumBodySize }

    // Disfavoured, so that a bare `Accumulator()` means `Accumulator<Data>` (the convenience
    // initialiser below) in every expression; labelled `accepting:` so that a subclass keeping
    // the `Data` content can call it (see ``SelectiveDiscarder``).
    /// Creates an accumulator: the designated initialiser, for subclasses, which override
    /// ``content(from:)``.
    /// - Parameters:
    ///   - gate: The statuses and content types to accept. Default ``ResponseGate/successful``.
    ///   - maximumBodySize: The largest body accepted, in bytes. Default 64 MiB.
    @_disfavoredOverload
    public init(accepting gate: ResponseGate = .successful, maximumBodySize: Int64 = HandlerDefaults.maximumBodySize) {
        super.init(accepting: gate)
        self.maximumBodySize = max(0, maximumBodySize)
    }

    /// Whether ``receive(_:)`` may be lent chunks an engine still owns: `true` for an
    /// `Accumulator` itself, which copies every chunk it is given (see ``ChunkBorrowing``).
    open override var receivesBorrowedChunks: Bool { type(of: self) == Accumulator<Content>.self }

    /// An accumulator keeps the body: small reads bound what a small or idle transfer holds.
    override var readsInBulk: Bool { false }

    /// Gates the response, refuses a `Content-Length` above the limit, and sizes the buffer for
    /// the declared length.
    open override func prepare(for head: ResponseHead) throws {
        try super.prepare(for: head)
        guard !head.hasNoBody, let declared = head.contentLength else { return }
        // Compressed bodies grow when decoded, so the declared length is only a lower bound. It
        // is also the server's word: past `maximumReservation` the buffer grows as bytes arrive
        // (`realloc` remaps large buffers rather than copying them), so that a hostile
        // `Content-Length` under a raised limit cannot take memory, or fail an allocation, up front.
        body.reserveCapacity(Int(min(declared, Self.maximumReservation)))
    }

    /// Appends the chunk; throws ``HotPotatoError/Code/bodyTooLarge`` past the limit, releasing
    /// the bytes.
    open override func receive(_ chunk: Data) throws {
        do {
            try super.receive(chunk)
        } catch {
            body = Data()
            throw error
        }
        body.append(chunk)
    }

    /// Converts the collected body with ``content(from:)``, attaching the bytes to any error.
    open override func finish() throws -> Content {
        do {
            return try content(from: body)
        } catch var error as HotPotatoError {
            if error.intermediate == nil { error.intermediate = .bytes(body) }
            if error.head == nil { error.head = head }
            throw error
        } catch {
            throw HotPotatoError.conversion(
                .conversionFailed, "Converting the body to \(Content.self) failed: \(error)",
                intermediate: .bytes(body), head: head, underlying: error)
        }
    }

    /// Produces the content from the whole body. `Accumulator<Data>` returns the body itself; a
    /// subclass with another `Content` type overrides this.
    open func content(from body: Data) throws -> Content {
        if let data = body as? Content { return data }
        throw HotPotatoError(
            .handlerFailed,
            reason: "\(type(of: self)) must override content(from:) to produce \(Content.self).",
            head: head)
    }

    /// Releases the collected bytes.
    open override func cleanUp() {
        body = Data()
    }
}

extension Accumulator where Content == Data {
    /// Creates an accumulator whose content is the body's `Data`.
    /// - Parameters:
    ///   - gate: The statuses and content types to accept. Default ``ResponseGate/successful``.
    ///   - maximumBodySize: The largest body accepted, in bytes. Default 64 MiB.
    public convenience init(gate: ResponseGate = .successful, maximumBodySize: Int64 = HandlerDefaults.maximumBodySize) {
        self.init(accepting: gate, maximumBodySize: maximumBodySize)
    }
}
