import Foundation

/// The connections behind one iteration of a ``ServerSentEventStream``: the one being read, and
/// the reconnections ``EventStreamReconnection`` allows after it ends.
///
/// `next()` is called by one consumer at a time; ``cancel()`` may come from any thread (the
/// iterator going away, the consuming task being cancelled).
final class ServerSentEventConnections<Element: Sendable>: @unchecked Sendable {
    typealias Connection = ElementStreamState<EventStreamElementParser<Element>>
    /// Opens a connection whose stream continues after the given last event ID (empty for none);
    /// `isReconnection` is `false` for the first connection only. The parser reads the time of
    /// the head from `clock`.
    typealias Connect = @Sendable (_ lastEventID: String, _ isReconnection: Bool, _ clock: EventStreamClock) -> Connection

    private let connect: Connect
    private let reconnection: EventStreamReconnection?
    private let clock: EventStreamClock
    private let lock = NSLock()
    /// Guarded by `lock`.
    private var current: Connection?
    /// Guarded by `lock`.
    private var isCancelled = false
    // Touched only by the consumer.
    /// No more connections: the current one's answers are the stream's.
    private var isSettled: Bool
    private var connections = 1
    /// Reconnections since the last connection that stayed up (or since the stream began).
    private var attempts = 0
    /// When the window of ``EventStreamReconnection/maximumElapsedTime`` began: the end of the
    /// last connection that stayed up, or the stream's start.
    private var windowStart: TimeInterval
    /// The reconnection time the server asked for last, in milliseconds: it outlives the
    /// connection that set it.
    private var serverRetry: Int?

    init(connect: @escaping Connect, reconnection: EventStreamReconnection?, clock: EventStreamClock = .system) {
        self.connect = connect
        self.reconnection = reconnection
        self.clock = clock
        isSettled = reconnection == nil
        windowStart = clock.now()
        current = connect("", false, clock)
    }

    /// The next event, `nil` at the end, or the error that ended the stream (once).
    func next() async -> Result<Element?, HotPotatoError> {
        while true {
            guard let connection = lock.withLock({ isCancelled ? nil : current }) else { return .failure(Self.cancelled) }
            let answer = await connection.next()
            if isSettled { return answer }
            let outcome: Result<Void, HotPotatoError>
            switch answer {
            case .success(.some): return answer
            case .success(.none): outcome = .success(())
            case .failure(let error): outcome = .failure(error)
            }
            guard let wait = reconnectionWait(after: outcome, of: connection) else {
                isSettled = true
                guard case .failure(var error) = answer, connections > 1 else { return answer }
                error.attempts = connections
                return .failure(error)
            }
            do {
                try await clock.sleep(wait)
            } catch {
                cancel()
                return .failure(Self.cancelled)
            }
            let lastEventID = connection.withParser { $0.lastEventID }
            let next = connect(lastEventID, true, clock)
            connections += 1
            let cancelled = lock.withLock { () -> Bool in
                if !isCancelled { current = next }
                return isCancelled
            }
            if cancelled {
                next.cancel()
                return .failure(Self.cancelled)
            }
        }
    }

    /// Stops the connection being read and any reconnection.
    func cancel() {
        let connection = lock.withLock { () -> Connection? in
            isCancelled = true
            return current
        }
        connection?.cancel()
    }

    /// How long to wait before reconnecting after `connection` ended with `outcome`, or `nil`
    /// when the stream ends with it: the end marker, an outcome that is never reconnected, or
    /// the budget spent.
    private func reconnectionWait(after outcome: Result<Void, HotPotatoError>, of connection: Connection) -> TimeInterval? {
        guard let reconnection else { return nil }
        let (complete, retry, head, connectedAt) = connection.withParser { ($0.isComplete, $0.reconnectionTime, $0.head, $0.connectedAt) }
        if let retry { serverRetry = retry }
        guard !complete, reconnection.reconnects(after: outcome, head: head) else { return nil }
        let now = clock.now()
        if let connectedAt, reconnection.stayedUp(forSeconds: now - connectedAt) {
            attempts = 0
            windowStart = now
        }
        attempts += 1
        guard attempts <= reconnection.maximumReconnections else { return nil }
        let wait = reconnection.wait(forAttempt: attempts, serverMilliseconds: serverRetry, random: clock.random())
        guard reconnection.isWithinTimeBudget(elapsed: now - windowStart, wait: wait) else { return nil }
        return wait
    }

    static var cancelled: HotPotatoError {
        HotPotatoError(.cancelled, reason: "The stream was cancelled.")
    }
}
