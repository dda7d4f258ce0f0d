import Foundation

/// The events of a `text/event-stream` body (Server-Sent Events) as they arrive — each a
/// ``ServerSentEvent``, or its data decoded as JSON — an `AsyncSequence` from
/// ``Request/streamEvents(endMarker:reconnection:bufferSize:maximumEventSize:)`` or
/// ``Request/streamEvents(decoding:using:endMarker:reconnection:bufferSize:maximumEventSize:)``.
///
/// ```swift
/// for try await delta in session.post(url).body(json: prompt).streamEvents(decoding: Delta.self) {
///     print(delta.text, terminator: "")
/// }
/// ```
///
/// The body is parsed by the WHATWG HTML standard's event-stream rules (`data:` lines joined with
/// line feeds, `event:`, `id:`, `retry:`, comments, a byte-order mark, `CR`, `LF` and `CRLF`
/// line ends), whatever the chunking.
///
/// **Memory** stays bounded by the largest event (`maximumEventSize`, 16 MiB by default): each
/// event is handed over and dropped. At most `bufferSize` events wait for the consumer; when they
/// are not taken, the transfer **waits**, so a slow consumer holds the server back instead of
/// filling memory (as ``JSONElementStream`` does).
///
/// **Only `200` starts a stream**, with `text/event-stream` (``ResponseGate/eventStream``), as
/// `EventSource` says; a `204 No Content` ends it at once, without events and for good.
///
/// **Errors** end the sequence after the events that came before: a rejected status (any other,
/// a `210` or `299` included) or content type fails the first `next()` with the server's
/// ``HotPotatoError/errorBody`` (a 401 with a JSON error is an error carrying its message, never
/// an empty stream); an event over the limit (all it holds: data, type, ID and the line being
/// read) is
/// ``HotPotatoError/Code/bodyTooLarge``; an event whose data does not decode is
/// ``HotPotatoError/Code/invalidJSON`` or ``HotPotatoError/Code/decodingFailed``, with the data as
/// ``HotPotatoError/intermediate``; a connection that drops is the transport's error (or, with
/// ``EventStreamReconnection``, a reconnection). Each carries ``HotPotatoError/elementIndex`` — how
/// many events were delivered before it — and, for an event, ``HotPotatoError/byteOffset``: where
/// its block began in the body (a JSON error's ``HotPotatoError/line`` and
/// ``HotPotatoError/column`` are within the event's data).
///
/// The request is sent when iteration starts; iterating again sends it again. Stopping early
/// (`break`, or cancelling the task) cancels the transfer. A body that ends with an event still
/// open (no blank line after it) ends the stream without it, as the standard says.
public struct ServerSentEventStream<Element: Sendable>: AsyncSequence, Sendable {
    /// The error a stream ends with: always a ``HotPotatoError``.
    public typealias Failure = HotPotatoError

    /// Opens a connection that continues the stream after the given last event ID.
    let connect: ServerSentEventConnections<Element>.Connect
    let reconnection: EventStreamReconnection?
    /// The time reconnection waits by: a test's own makes no real waits.
    var clock = EventStreamClock.system

    /// Starts the request and returns an iterator over its events.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(connections: ServerSentEventConnections(connect: connect, reconnection: reconnection, clock: clock))
    }

    /// Iterates over the events; one consumer at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// Cancels the transfer when the iterator is dropped before the end.
        final class Lifetime: Sendable {
            let connections: ServerSentEventConnections<Element>

            init(connections: ServerSentEventConnections<Element>) {
                self.connections = connections
            }

            deinit {
                connections.cancel()
            }
        }

        let lifetime: Lifetime

        init(connections: ServerSentEventConnections<Element>) {
            lifetime = Lifetime(connections: connections)
        }

        /// The next event, or `nil` after the last one.
        ///
        /// - Throws: ``HotPotatoError`` when the stream failed (see ``ServerSentEventStream``).
        public mutating func next() async throws(HotPotatoError) -> Element? {
            try await lifetime.connections.next().get()
        }

        /// The next event, or `nil` after the last one.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(HotPotatoError) -> Element? {
            try await lifetime.connections.next().get()
        }
    }
}
