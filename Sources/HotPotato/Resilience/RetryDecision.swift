import Foundation

/// What a ``RequestInterceptor`` or a ``RetryPolicy`` decides after a failed attempt.
public enum RetryDecision: Sendable, Equatable {
    /// Send the request again now.
    case retry
    /// Send the request again after this many seconds (the wait is cancelled with the call).
    case retryAfter(TimeInterval)
    /// Do not retry; the next interceptor, then the retry policy, may still decide to.
    case doNotRetry
    /// Do not retry, and fail the call with this error instead of the attempt's (for example a
    /// credential refresh that failed). No one else is asked.
    case fail(HotPotatoError)

    /// Compares the decisions; two ``fail(_:)`` decisions are equal when their codes and reasons are.
    public static func == (lhs: RetryDecision, rhs: RetryDecision) -> Bool {
        switch (lhs, rhs) {
        case (.retry, .retry), (.doNotRetry, .doNotRetry): return true
        case (.retryAfter(let a), .retryAfter(let b)): return a == b
        case (.fail(let a), .fail(let b)): return a.code == b.code && a.reason == b.reason
        default: return false
        }
    }
}
