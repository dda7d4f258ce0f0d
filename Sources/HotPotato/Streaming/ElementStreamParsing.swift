import Foundation

/// What an ``ElementStreamState`` parses a body with: it turns bytes, in whatever chunks they
/// come, into elements (decoded JSON values, server-sent events).
///
/// A class, confined to the state's lock: the state makes every call under it, one at a time
/// (so conforming classes are `@unchecked Sendable`).
protocol ElementStreamParsing: AnyObject, Sendable {
    associatedtype Element: Sendable

    /// Receives the response head before any byte, for the errors it describes.
    func prepare(for head: ResponseHead)

    /// Parses the next bytes of the body, handing each element they complete to `emit`, in order.
    ///
    /// - Throws: the ``HotPotatoError`` that ends the stream (a syntax error, an element that does
    ///   not decode or is too large), after handing over the elements completed before it.
    func parse(_ bytes: UnsafeRawBufferPointer, emit: (Element) -> Void) throws(HotPotatoError)

    /// The body ended: hands over what its end completes, and throws when the body was cut off
    /// mid-element in a way the format does not allow.
    func finish(emit: (Element) -> Void) throws(HotPotatoError)

    /// Whether the parser has read all it wants before the body's end (an end marker): the
    /// stream then ends normally and the transfer is stopped.
    var isComplete: Bool { get }

    /// How many elements were handed over: the index of the element a failure belongs to.
    var elementsEmitted: Int { get }

    /// Whether the format's bodies arrive a little at a time over a long life (an event stream),
    /// so that a transfer is better served by a small read buffer than a large one: memory per
    /// open stream matters more than reads per second.
    static var arrivesSparsely: Bool { get }
}
