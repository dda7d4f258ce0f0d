import Foundation

/// How a ``ServerSentEventStream`` opens its connection again when it ends, as a browser's
/// `EventSource` does: after the delay the server last asked for with `retry:` (or ``delay``),
/// with a `Last-Event-ID` header carrying the ID of the last event read to its end, so that the
/// server can resume where the stream left off — plus a floor, a growing backoff and a budget,
/// so that a server that drops every connection at once cannot make the client hammer it.
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
/// `EventSource`), a body the server ends normally. **What does not:** a rejected status or
/// content type, on the first connection or a reconnection (only `200` starts a stream: the
/// server said no), a `204 No Content` (the standard's way for a server to say "stop"), an event
/// over the size limit or one that does not decode, the end marker (`[DONE]`), and cancellation.
/// Those end the stream for good. A reconnection is never retried by a ``RetryPolicy``: this
/// policy alone decides (interceptors still run).
///
/// **When:** the *n*-th reconnection since the last connection that stayed up waits
/// `base × multiplier^(n−1)`, at most ``maximumDelay``, less a random part of up to ``jitter``
/// of it, and never less than ``minimumDelay`` — where `base` is the server's last `retry:` (or
/// ``delay``), raised to ``minimumDelay``. With the defaults and no `retry:` from the server:
/// 1.5–3 s, 3–6 s, 6–12 s, 12–24 s, 15–30 s; after a `retry: 0`: 1 s, 1–2 s, 2–4 s, …
///
/// **How often:** at most ``maximumReconnections`` reconnections since the last connection that
/// stayed up — that was open (its `200` head received) for ``backoffResetInterval`` seconds
/// (60 by default). Events do not reset the count: a server that sends one event and drops the
/// connection, again and again, uses up the attempts. A connection that stays up resets the
/// count, the backoff and the ``maximumElapsedTime`` window, so a long-lived stream that drops
/// now and then keeps going. When the budget is spent, the stream ends with the last
/// connection's error (its ``HotPotatoError/attempts`` says how many connections were made), or
/// normally if it ended normally. Cancelling the iterating task ends the wait at once.
public struct EventStreamReconnection: Sendable, Hashable {
    /// The most reconnections since the last connection that stayed up for
    /// ``backoffResetInterval`` (or since the stream began). Default 5; 0 never reconnects.
    ///
    /// It counts reconnections, not connections: the first connection is not one of them (where
    /// ``RetryPolicy/maximumAttempts`` counts every attempt, the first included).
    public var maximumReconnections: Int
    /// The old name of ``maximumReconnections``, which it always counted (not attempts, as
    /// ``RetryPolicy/maximumAttempts`` does).
    @available(*, deprecated, renamed: "maximumReconnections")
    public var maximumAttempts: Int {
        get { maximumReconnections }
        set { maximumReconnections = newValue }
    }
    /// The wait before reconnecting, in seconds, until the server sets another with `retry:`:
    /// the base of the backoff. Default 3, as browsers.
    public var delay: TimeInterval
    /// The longest wait, in seconds: the backoff grows to it and no further, and a server's longer
    /// `retry:` is cut to it. Default 30.
    public var maximumDelay: TimeInterval
    /// Whether a body the server ends normally is reconnected too, as `EventSource` does. Default
    /// `true`; `false` reconnects only after a failure. A `204` or the end marker is never
    /// reconnected.
    public var reconnectsAfterEnd: Bool
    /// The shortest wait, in seconds, whatever the server asks: a `retry: 0` cannot make the
    /// client reconnect in a loop. Default 1. Set 0 only for a server you trust (a test's).
    public var minimumDelay: TimeInterval
    /// How much longer each wait is than the one before, until a connection stays up. Default 2.
    public var multiplier: Double
    /// The part of each wait, from 0 to 1, that is taken off at random, so that many clients
    /// dropped together do not come back together. Default 0.5: a wait of 1 to 2 × its half.
    public var jitter: Double
    /// How long a connection must stay open, in seconds from its `200` head to its end, to count
    /// as up: it resets ``maximumReconnections``, the backoff and ``maximumElapsedTime``. Default 60.
    public var backoffResetInterval: TimeInterval
    /// No reconnection starts later than this many seconds after the end of the last connection
    /// that stayed up (or after the stream began, when none has); `nil` (the default) for no
    /// limit but ``maximumReconnections``.
    public var maximumElapsedTime: TimeInterval?

    /// Creates a reconnection policy; see the properties for the defaults.
    public init(
        maximumReconnections: Int = 5, delay: TimeInterval = 3, maximumDelay: TimeInterval = 30, reconnectsAfterEnd: Bool = true,
        minimumDelay: TimeInterval = 1, multiplier: Double = 2, jitter: Double = 0.5, backoffResetInterval: TimeInterval = 60,
        maximumElapsedTime: TimeInterval? = nil
    ) {
        self.maximumReconnections = maximumReconnections
        self.delay = delay
        self.maximumDelay = maximumDelay
        self.reconnectsAfterEnd = reconnectsAfterEnd
        self.minimumDelay = minimumDelay
        self.multiplier = multiplier
        self.jitter = jitter
        self.backoffResetInterval = backoffResetInterval
        self.maximumElapsedTime = maximumElapsedTime
    }

    /// The old spelling of ``init(maximumReconnections:delay:maximumDelay:reconnectsAfterEnd:minimumDelay:multiplier:jitter:backoffResetInterval:maximumElapsedTime:)``.
    @available(*, deprecated, renamed: "init(maximumReconnections:delay:maximumDelay:reconnectsAfterEnd:minimumDelay:multiplier:jitter:backoffResetInterval:maximumElapsedTime:)")
    public init(
        maximumAttempts: Int, delay: TimeInterval = 3, maximumDelay: TimeInterval = 30, reconnectsAfterEnd: Bool = true,
        minimumDelay: TimeInterval = 1, multiplier: Double = 2, jitter: Double = 0.5, backoffResetInterval: TimeInterval = 60,
        maximumElapsedTime: TimeInterval? = nil
    ) {
        self.init(maximumReconnections: maximumAttempts, delay: delay, maximumDelay: maximumDelay, reconnectsAfterEnd: reconnectsAfterEnd,
                  minimumDelay: minimumDelay, multiplier: multiplier, jitter: jitter, backoffResetInterval: backoffResetInterval,
                  maximumElapsedTime: maximumElapsedTime)
    }
}
