import Foundation

/// One event of a `text/event-stream` body (Server-Sent Events), as the WHATWG HTML standard
/// dispatches it: what ``Request/streamEvents(endMarker:reconnection:bufferSize:maximumEventSize:)``
/// yields and ``EventStreamParser`` hands to its callback.
///
/// ```swift
/// for try await event in session.get(url).streamEvents() {
///     print(event.type, event.data)
/// }
/// ```
public struct ServerSentEvent: Sendable, Hashable {
    /// The event type: the last `event:` field of the event's block, or `"message"` without one.
    public var type: String
    /// The `data:` fields of the event's block, joined with line feeds (`"\n"`). A block with no
    /// `data:` field is not an event; an empty `data:` line makes an event whose data is empty.
    public var data: String
    /// The last event ID: the value of the latest `id:` field of the stream so far (of this block
    /// or an earlier one), empty until there is one. It is what a reconnection sends as
    /// `Last-Event-ID`.
    public var id: String
    /// The reconnection time this event's block asked for with a `retry:` field, in milliseconds
    /// as the field writes it; `nil` when it had none. In seconds, as every other interval of
    /// HotPotato's (``EventStreamReconnection/delay``): ``retryInterval``.
    public var retry: Int?

    /// ``retry`` in seconds.
    public var retryInterval: TimeInterval? { retry.map { TimeInterval($0) / 1000 } }

    /// Creates an event.
    /// - Parameters:
    ///   - type: The event type; default `"message"`.
    ///   - data: The event's data.
    ///   - id: The last event ID; default none (empty).
    ///   - retry: The reconnection time in milliseconds the event asked for, if any.
    public init(type: String = "message", data: String, id: String = "", retry: Int? = nil) {
        self.type = type
        self.data = data
        self.id = id
        self.retry = retry
    }
}
