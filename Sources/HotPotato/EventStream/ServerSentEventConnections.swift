import Foundation

/// The connections behind one iteration of a ``ServerSentEventStream``: the one being read, and
/// the reconnections ``EventStreamReconnection`` allows after it ends.
///
/// `next()` is called by one consumer at a time; ``cancel()`` may come from any thread (the
/// iterator going away, the consuming task being cancelled).
final class ServerSentEventConnections<Element: Sendable>: @unchecked Sendable {
    /// Opens a connection whose stream continues after the given last event ID (empty for none).
    typealias Connect = @Sendable (_ lastEventID: String) -> ElementStreamState<EventStreamElementParser<Element>>

    private let connect: Connect
    private let reconnection: EventStreamReconnection?
    private let lock = NSLock()
    /// Guarded by `lock`.
    private var current: ElementStreamState<EventStreamElementParser<Element>>?
    /// Guarded by `lock`.
    private var isCancelled = false
    // Touched only by the consumer.
    /// No more connections: the current one's answers are the stream's.
    private var isSettled: Bool
    private var connections = 1
    /// Reconnections in a row that delivered no event.
    private var fruitlessAttempts = 0
    /// The reconnection time the server asked for last, in milliseconds: it outlives the
    /// connection that set it.
    private var serverRetry: Int?

    init(connect: @escaping Connect, reconnection: EventStreamReconnection?) {
        self.connect = connect
        self.reconnection = reconnection
        isSettled = reconnection == nil
        current = connect("")
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
            if wait > 0 {
                do {
                    try await Task.sleep(nanoseconds: UInt64(wait * 1_000_000_000))
                } catch {
                    cancel()
                    return .failure(Self.cancelled)
                }
            }
            let lastEventID = connection.withParser { $0.lastEventID }
            let next = connect(lastEventID)
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
        let connection = lock.withLock { () -> ElementStreamState<EventStreamElementParser<Element>>? in
            isCancelled = true
            return current
        }
        connection?.cancel()
    }

    /// How long to wait before reconnecting after `connection` ended with `outcome`, or `nil`
    /// when the stream ends with it.
    private func reconnectionWait(
        after outcome: Result<Void, HotPotatoError>, of connection: ElementStreamState<EventStreamElementParser<Element>>
    ) -> TimeInterval? {
        guard let reconnection else { return nil }
        let (delivered, complete, retry, head) = connection.withParser { ($0.elementsEmitted, $0.isComplete, $0.reconnectionTime, $0.head) }
        if let retry { serverRetry = retry }
        guard !complete, reconnection.reconnects(after: outcome, head: head) else { return nil }
        fruitlessAttempts = delivered > 0 ? 0 : fruitlessAttempts + 1
        guard fruitlessAttempts <= reconnection.maximumAttempts else { return nil }
        return reconnection.wait(serverMilliseconds: serverRetry)
    }

    static var cancelled: HotPotatoError {
        HotPotatoError(.cancelled, reason: "The stream was cancelled.")
    }
}
