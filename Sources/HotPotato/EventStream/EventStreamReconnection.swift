import Foundation

/// How a ``ServerSentEventStream`` reconnects when its connection drops, as a browser's
/// `EventSource` does: after the delay the server last asked for with `retry:` (or ``delay``),
/// with a `Last-Event-ID` header carrying the ID of the last event read to its end, so that the
/// server can resume where the stream left off.
///
/// ```swift
/// for try await event in session.get(url).streamEvents(reconnection: EventStreamReconnection()) {
///     print(event.id, event.data)
/// }
/// ```
///
/// **What reconnects:** a connection that fails in transit — ``HotPotatoError/Code/truncatedBody``,
/// ``HotPotatoError/Code/connectionLost``, ``HotPotatoError/Code/timedOut``,
/// ``HotPotatoError/Code/connectionRefused``, ``HotPotatoError/Code/hostNotFound``,
/// ``HotPotatoError/Code/transportFailed`` — and, with ``reconnectsAfterEnd`` (the default, as
/// `EventSource`), a body that ends normally. **What does not:** a rejected status or content
/// type (the server said no), a `204 No Content` (the standard's way for a server to say
/// "stop"), an event over the size limit or one that does not decode, the end marker, and
/// cancellation. Those end the stream, as without reconnection.
///
/// **How often:** at most ``maximumAttempts`` reconnections in a row that deliver no event; a
/// connection that delivers one starts the count again, so a long-lived stream that drops now and
/// then keeps going. When the attempts run out, the stream ends with the last connection's error
/// (its ``HotPotatoError/attempts`` says how many connections were made), or normally if it ended
/// normally. Cancelling the iterating task ends the wait at once.
public struct EventStreamReconnection: Sendable, Hashable {
    /// The most reconnections in a row without an event in between. Default 5.
    public var maximumAttempts: Int
    /// The wait before reconnecting, in seconds, until the server sets another with `retry:`.
    /// Default 3, as browsers.
    public var delay: TimeInterval
    /// The longest wait accepted from a server's `retry:`, in seconds; longer ones are cut to it.
    /// Default 60.
    public var maximumDelay: TimeInterval
    /// Whether a body that ends normally is reconnected too, as `EventSource` does. Default `true`;
    /// `false` reconnects only after a failure.
    public var reconnectsAfterEnd: Bool

    /// Creates a reconnection policy; see the properties for the defaults.
    public init(maximumAttempts: Int = 5, delay: TimeInterval = 3, maximumDelay: TimeInterval = 60, reconnectsAfterEnd: Bool = true) {
        self.maximumAttempts = maximumAttempts
        self.delay = delay
        self.maximumDelay = maximumDelay
        self.reconnectsAfterEnd = reconnectsAfterEnd
    }

    /// The failures a stream reconnects after.
    static let reconnectableCodes: Set<HotPotatoError.Code> = [
        .truncatedBody, .connectionLost, .timedOut, .connectionRefused, .hostNotFound, .transportFailed,
    ]

    /// Whether a connection that ended with `outcome` (after `head`, if one came) is followed by
    /// another.
    func reconnects(after outcome: Result<Void, HotPotatoError>, head: ResponseHead?) -> Bool {
        switch outcome {
        case .success:
            return reconnectsAfterEnd && head?.status != 204
        case .failure(let error):
            return Self.reconnectableCodes.contains(error.code)
        }
    }

    /// The wait before the next connection: the server's last `retry:` (milliseconds), capped, or
    /// the default.
    func wait(serverMilliseconds: Int?) -> TimeInterval {
        let asked = serverMilliseconds.map { TimeInterval($0) / 1000 } ?? delay
        return max(0, min(asked, maximumDelay))
    }
}
