import Foundation

/// Parses a `text/event-stream` body (Server-Sent Events) as it arrives and hands each event to
/// a callback, or to ``receive(event:)`` in a subclass. Its content is an
/// ``EventStreamSummary``.
///
/// Most code wants ``Request/streamEvents(endMarker:reconnection:bufferSize:maximumEventSize:)``,
/// an `AsyncSequence` of the events built on the same rules. This handler is for a callback of
/// your own on the transfer's thread, or a subclass:
///
/// ```swift
/// let summary = try await session.get(url)
///     .handled(by: EventStreamParser { event in print(event.type, event.data) })
///     .content
/// print(summary.eventCount, summary.lastEventID)
/// ```
///
/// The events follow the WHATWG HTML standard's event-stream rules whatever the chunking (see
/// ``ServerSentEvent``); an event still open when the body ends is discarded, as the standard
/// says. Accepts `200` with `text/event-stream`, and a `204` as no events, by default
/// (``ResponseGate/eventStream``: as `EventSource`, a `210` or `299` is rejected); a rejected
/// response keeps its error body as every handler's does. An event larger than
/// ``maximumEventSize`` — its data, type, ID and the line being read, together — fails with
/// ``HotPotatoError/Code/bodyTooLarge`` (with the offset where its block began); whatever the
/// callback throws fails the response.
open class EventStreamParser: SelectiveDiscarder<EventStreamSummary> {
    /// Called with each event, in order, on the transfer's thread; unused by a subclass that
    /// overrides ``receive(event:)``.
    public var onEvent: ((ServerSentEvent) throws -> Void)?
    /// The most bytes an event may hold while it is read: the line being read, the data gathered
    /// so far, the event type and the last event ID, together.
    public let maximumEventSize: Int
    /// Events handed over so far.
    public private(set) var eventCount = 0
    private var scanner: ServerSentEventScanner

    /// Creates a parser.
    /// - Parameters:
    ///   - gate: The statuses and content types to accept. Default ``ResponseGate/eventStream``.
    ///   - maximumEventSize: The most bytes an event may hold while it is read (see
    ///     ``maximumEventSize``). Default 16 MiB.
    ///   - lastEventID: The last event ID of a stream this response continues, for the events'
    ///     ``ServerSentEvent/id`` until the body sets one. Default none.
    ///   - onEvent: Called with each event.
    public init(
        accepting gate: ResponseGate = .eventStream, maximumEventSize: Int = 16 * 1024 * 1024, lastEventID: String = "",
        onEvent: ((ServerSentEvent) throws -> Void)? = nil
    ) {
        self.maximumEventSize = max(1, maximumEventSize)
        self.onEvent = onEvent
        scanner = ServerSentEventScanner(maximumEventSize: self.maximumEventSize, lastEventID: lastEventID)
        super.init(accepting: gate)
    }

    /// The scanner copies what it keeps of a chunk: HotPotato's own class may be lent chunks.
    open override var receivesBorrowedChunks: Bool { type(of: self) == EventStreamParser.self }

    /// An event stream is open for long and mostly idle: its transfer keeps libcurl's small buffer.
    override var readsInBulk: Bool { false }

    /// Handles one event; by default calls ``onEvent``. Throw to fail the response.
    open func receive(event: ServerSentEvent) throws {
        try onEvent?(event)
    }

    /// Counts the chunk against the size limit and parses it, handing over each event it
    /// completes.
    open override func receive(_ chunk: Data) throws {
        try super.receive(chunk)
        do {
            try scanner.feed(chunk) { event, _ in
                eventCount += 1
                try receive(event: event)
            }
        } catch var error as HotPotatoError {
            if error.head == nil { error.head = head }
            throw error
        }
    }

    /// Discards an event still open, and returns the summary.
    open override func finish() throws -> EventStreamSummary {
        scanner.finish()
        return EventStreamSummary(
            eventCount: eventCount, lastEventID: scanner.committedEventID, reconnectionTime: scanner.reconnectionTime)
    }
}
