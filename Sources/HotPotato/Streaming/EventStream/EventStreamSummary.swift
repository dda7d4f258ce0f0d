/// What an ``EventStreamParser`` read, once the body has ended: its content.
public struct EventStreamSummary: Sendable, Hashable {
    /// How many events were dispatched to the handler.
    public var eventCount: Int
    /// The stream's last event ID when it ended (empty for none): what a new request continuing
    /// the stream sends as `Last-Event-ID`.
    public var lastEventID: String
    /// The reconnection time the server asked for last with `retry:`, in milliseconds, if any.
    public var reconnectionTime: Int?

    /// Creates a summary.
    public init(eventCount: Int, lastEventID: String, reconnectionTime: Int?) {
        self.eventCount = eventCount
        self.lastEventID = lastEventID
        self.reconnectionTime = reconnectionTime
    }
}
