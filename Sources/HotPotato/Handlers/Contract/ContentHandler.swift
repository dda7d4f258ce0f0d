import Foundation

/// Turns an HTTP response body, fed to it chunk by chunk as it arrives, into typed content.
///
/// A handler knows nothing about the transport: URLSession, libcurl, a test, or any other source
/// of bytes drives it through a ``ResponseDriver``, which makes the calls below in the order
/// below. HotPotato's handlers (``SelectiveDiscarder``, ``Accumulator``, ``StringConverter``,
/// ``JSONParser``, ``StreamWriter``, ``FileWriter``) are open classes: subclass one to change a
/// step rather than implementing this protocol from scratch.
///
/// ## Call order
///
/// For one response, the driver calls:
///
/// 1. ``prepare(for:)`` exactly once, with the response head, before any body byte. Throw to
///    refuse the response. Throwing a ``HotPotatoError`` whose code is a rejection
///    (``HotPotatoError/Code/isRejection``: an unacceptable status or content type) makes the
///    driver keep a bounded copy of the body for the error (``HotPotatoError/errorBody``);
///    any other error fails the response at once. After a throw, no other method but
///    ``cleanUp()`` is called.
/// 2. ``receive(_:)`` zero or more times, with the body's bytes in order, never an empty chunk.
///    Throw to stop the transfer; the error fails the response.
/// 3. ``finish()`` exactly once when the whole body has arrived (and was not truncated), to
///    produce the content. Throw if the content cannot be produced.
///
/// ``cleanUp()`` is called after any failure — a throw from the handler, a transport error,
/// a truncated body, a cancellation — at any point of the sequence, including before
/// ``prepare(for:)``. It must be idempotent and safe to call at any time, including after
/// ``finish()`` (where it must not undo a successful result, such as a placed file).
///
/// Calls are never concurrent: the driver makes them one after another, though not always from
/// the same thread. A handler therefore needs no locking of its own, and serves one response:
/// create a new handler for each request.
///
/// ## Errors
///
/// Throw ``HotPotatoError`` to keep HotPotato's error model; the driver attaches the response
/// head. Any other error is wrapped in a ``HotPotatoError`` with code
/// ``HotPotatoError/Code/handlerFailed`` and the original as ``HotPotatoError/underlying``.
public protocol ContentHandler<Content>: AnyObject {
    /// The typed result of handling a response, such as `Data`, `String`, ``JSON`` or a file URL.
    associatedtype Content

    /// Receives the response head before any body byte; throws to refuse the response.
    func prepare(for head: ResponseHead) throws

    /// Receives the next chunk of the body; throws to stop the transfer.
    ///
    /// The chunk is never empty. Chunk boundaries carry no meaning: the same body may arrive in
    /// one chunk or a byte at a time.
    func receive(_ chunk: Data) throws

    /// Produces the content once the whole body has arrived.
    func finish() throws -> Content

    /// Releases what the handler holds after a failure or cancellation: closes files, removes
    /// partial output. Idempotent; safe before, between or after any other call.
    func cleanUp()
}
