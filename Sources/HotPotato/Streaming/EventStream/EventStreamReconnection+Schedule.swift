import Foundation

/// The rules of ``EventStreamReconnection`` as functions of what happened: whether a connection's
/// end is followed by another, and how long to wait first.
extension EventStreamReconnection {
    /// The failures a stream reconnects after: the transient ones a request is retried after
    /// (``RetryPolicy/transientErrorCodes``, the one list of them), and any other transport
    /// failure too — a stream that was up is worth opening again, as `EventSource` does, where a
    /// request that failed is not sent again blindly.
    static let reconnectableCodes: Set<HotPotatoError.Code> = RetryPolicy.transientErrorCodes.union([.transportFailed])

    /// The longest wait ever slept, whatever the properties say (an infinite ``maximumDelay``
    /// must not trap when turned into nanoseconds): a day.
    static let longestWait: TimeInterval = 86_400

    /// Whether a connection that ended with `outcome` (after `head`, if one came) may be followed
    /// by another, budget permitting.
    func reconnects(after outcome: Result<Void, HotPotatoError>, head: ResponseHead?) -> Bool {
        switch outcome {
        case .success:
            return reconnectsAfterEnd && head?.status != 204
        case .failure(let error):
            return Self.reconnectableCodes.contains(error.code)
        }
    }

    /// Whether a connection open (its head received) for `seconds` stayed up: it resets the
    /// attempts, the backoff and the elapsed-time window.
    func stayedUp(forSeconds seconds: TimeInterval) -> Bool {
        seconds >= Self.sanitized(backoffResetInterval)
    }

    /// The wait before reconnection `attempt` (1 for the first since the last connection that
    /// stayed up): the base — the server's last `retry:` in milliseconds, or ``delay`` — raised to
    /// ``minimumDelay``, times ``multiplier`` for each attempt before this one, capped at
    /// ``maximumDelay``, less `random` (in `0..<1`) × ``jitter`` of it, and at least
    /// ``minimumDelay``.
    func wait(forAttempt attempt: Int, serverMilliseconds: Int?, random: Double) -> TimeInterval {
        let floor = Self.sanitized(minimumDelay)
        let asked = serverMilliseconds.map { TimeInterval($0) / 1000 } ?? Self.sanitized(delay)
        let base = max(floor, asked)
        let growth = pow(max(1, multiplier.isFinite ? multiplier : 1), Double(min(max(0, attempt - 1), 64)))
        let cap = min(Self.sanitized(maximumDelay), Self.longestWait)
        let full = base == 0 ? 0 : min(cap, base * growth)
        let jittered = full * (1 - min(1, max(0, jitter.isFinite ? jitter : 0)) * min(1, max(0, random)))
        return min(max(floor, jittered), Self.longestWait)
    }

    /// Whether a reconnection that would start `elapsed + wait` seconds after the window began is
    /// within ``maximumElapsedTime``.
    func isWithinTimeBudget(elapsed: TimeInterval, wait: TimeInterval) -> Bool {
        guard let maximumElapsedTime else { return true }
        return elapsed + wait <= maximumElapsedTime
    }

    /// A number of seconds made safe to compute with: NaN and negatives are 0.
    private static func sanitized(_ seconds: TimeInterval) -> TimeInterval {
        seconds.isNaN ? 0 : max(0, seconds)
    }
}
