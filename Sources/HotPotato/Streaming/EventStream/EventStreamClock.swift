import Foundation

/// What reconnecting an event stream reads the time from, sleeps with and draws its jitter
/// from: the system's by default, a test's own (virtual time, no real waits) in tests.
struct EventStreamClock: Sendable {
    /// Monotonic seconds (from an arbitrary origin).
    var now: @Sendable () -> TimeInterval
    /// Waits `seconds`; throws when the task is cancelled.
    var sleep: @Sendable (_ seconds: TimeInterval) async throws -> Void
    /// A random number in `0..<1`, for the jitter.
    var random: @Sendable () -> Double

    /// The system's monotonic clock, `Task.sleep` and the system's random numbers.
    static let system = EventStreamClock(
        now: { TimeInterval(DispatchTime.now().uptimeNanoseconds) / 1_000_000_000 },
        sleep: { seconds in
            guard seconds > 0 else { return try Task.checkCancellation() }
            try await Task.sleep(nanoseconds: UInt64(min(seconds, EventStreamReconnection.longestWait) * 1_000_000_000))
        },
        random: { Double.random(in: 0..<1) })
}
