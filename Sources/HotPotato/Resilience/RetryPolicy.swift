import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// When a failed request is sent again, and how long to wait first: exponential backoff with
/// jitter, `Retry-After` honoured, idempotent methods only by default.
///
/// Set one for a session (``Session/Configuration/retryPolicy``) or for one request
/// (``Request/retry(_:)``). A session retries nothing by default.
///
/// ```swift
/// let file = try await session.get(isoURL)
///     .downloadToFile(at: destination)
///     .retry(RetryPolicy(maximumAttempts: 10))
///     .content
/// ```
///
/// What a retry does:
/// - Each attempt gets a new handler, so no handler ever sees a mixture of two responses, except
///   ``FileWriter`` (``Request/downloadToFile(at:existingFilePolicy:createsIntermediateDirectories:resumable:maximumBodySize:checksum:onlyIfChanged:keepsRemoteTime:connections:mirrors:)``):
///   it keeps the bytes it has and asks for the rest with `Range` and `If-Range`, so a large
///   download survives broken connections without starting over, and its progress keeps
///   counting. If the server cannot continue (no validator, another version), the attempt starts
///   over. A download that is not `resumable` removes its partial file when the call finally
///   fails or is cancelled.
/// - Cancelling the call cancels the wait between attempts too.
/// - The call's final error is the last attempt's (its status, error body and server message),
///   with ``HotPotatoError/attempts`` set.
///
/// The wait before attempt *n + 1* is `initialDelay × multiplierⁿ⁻¹`, at most `maximumDelay`, less
/// a random part of up to `jitter` of it (so that many clients failing together do not come back
/// together). A `Retry-After` header of the failed response — seconds or an HTTP date — replaces
/// it, up to `maximumRetryAfter`.
public struct RetryPolicy: RequestInterceptor {
    /// The most times a request is sent, the first included; 1 retries nothing.
    public var maximumAttempts: Int
    /// The wait before the first retry, in seconds.
    public var initialDelay: TimeInterval
    /// How much longer each wait is than the one before.
    public var multiplier: Double
    /// The longest wait computed by backoff, in seconds.
    public var maximumDelay: TimeInterval
    /// The part of each wait, from 0 to 1, that is taken off at random. 0 waits exactly the backoff.
    public var jitter: Double
    /// The longest `Retry-After` honoured, in seconds: a longer one is waited for this long.
    public var maximumRetryAfter: TimeInterval
    /// No retry starts later than this many seconds after the call began (curl's
    /// `--retry-max-time`); `nil` for no limit.
    public var maximumElapsedTime: TimeInterval?
    /// The methods retried. Default: the idempotent ones, `GET`, `HEAD`, `PUT`, `DELETE`,
    /// `OPTIONS` and `TRACE`. A `POST` or `PATCH` is retried only if you add it.
    public var retryableMethods: Set<HTTPMethod>
    /// The statuses retried, when the handler rejected them
    /// (``HotPotatoError/Code/unacceptableStatus``). Default 408, 429, 500, 502, 503 and 504.
    public var retryableStatusCodes: Set<Int>
    /// The failures retried. Default: the connection refused, lost or cut short
    /// (``HotPotatoError/Code/connectionRefused``, ``HotPotatoError/Code/connectionLost``,
    /// ``HotPotatoError/Code/truncatedBody``), a timeout, and a host name that did not resolve.
    public var retryableErrorCodes: Set<HotPotatoError.Code>

    /// The default methods: `GET`, `HEAD`, `PUT`, `DELETE`, `OPTIONS`, `TRACE`.
    public static let idempotentMethods: Set<HTTPMethod> = [.get, .head, .put, .delete, .options, "TRACE"]
    /// The default statuses: 408, 429, 500, 502, 503, 504.
    public static let transientStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504]
    /// The default failures.
    public static let transientErrorCodes: Set<HotPotatoError.Code> = [
        .connectionRefused, .connectionLost, .truncatedBody, .timedOut, .hostNotFound,
    ]

    /// A policy that never retries.
    public static let never = RetryPolicy(maximumAttempts: 1)

    /// Creates a policy; every parameter has the default described at its property.
    public init(
        maximumAttempts: Int = 3,
        initialDelay: TimeInterval = 0.5,
        multiplier: Double = 2,
        maximumDelay: TimeInterval = 30,
        jitter: Double = 0.5,
        maximumRetryAfter: TimeInterval = 120,
        maximumElapsedTime: TimeInterval? = nil,
        retryableMethods: Set<HTTPMethod> = RetryPolicy.idempotentMethods,
        retryableStatusCodes: Set<Int> = RetryPolicy.transientStatusCodes,
        retryableErrorCodes: Set<HotPotatoError.Code> = RetryPolicy.transientErrorCodes
    ) {
        self.maximumAttempts = maximumAttempts
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maximumDelay = maximumDelay
        self.jitter = jitter
        self.maximumRetryAfter = maximumRetryAfter
        self.maximumElapsedTime = maximumElapsedTime
        self.retryableMethods = retryableMethods
        self.retryableStatusCodes = retryableStatusCodes
        self.retryableErrorCodes = retryableErrorCodes
    }

    /// Whether this policy could ever send a request twice.
    var mayRetry: Bool { maximumAttempts > 1 }

    /// Retries `failure` after ``delay(after:)`` when its method, its error and the limits allow.
    public func retry(_ failure: RetryContext) async -> RetryDecision {
        decision(for: failure)
    }

    /// The decision of ``retry(_:)``, synchronously.
    public func decision(for failure: RetryContext) -> RetryDecision {
        guard failure.attempt < maximumAttempts, isRetryable(failure.error),
              retryableMethods.contains(failure.method)
        else { return .doNotRetry }
        let wait = delay(after: failure)
        if let maximumElapsedTime, failure.elapsed + wait > maximumElapsedTime { return .doNotRetry }
        return .retryAfter(wait)
    }

    /// Whether the policy retries this error, whatever the method and attempt.
    public func isRetryable(_ error: HotPotatoError) -> Bool {
        if error.code == .unacceptableStatus, let status = error.status {
            return retryableStatusCodes.contains(status)
        }
        return retryableErrorCodes.contains(error.code)
    }

    /// The wait before the attempt after `failure`: its `Retry-After` (capped), or the backoff
    /// with jitter.
    public func delay(after failure: RetryContext) -> TimeInterval {
        if let head = failure.error.head, let retryAfter = Self.retryAfter(head) {
            return min(max(0, retryAfter), max(0, maximumRetryAfter))
        }
        return backoff(afterAttempt: failure.attempt, random: Double.random(in: 0..<1))
    }

    /// The backoff after attempt `attempt` (from 1), with `random` in `0..<1` choosing the jitter.
    func backoff(afterAttempt attempt: Int, random: Double) -> TimeInterval {
        let exponent = Double(max(0, attempt - 1))
        let full = min(max(0, maximumDelay), max(0, initialDelay) * pow(max(1, multiplier), exponent))
        return full * (1 - min(1, max(0, jitter)) * random)
    }

    /// The seconds a response's `Retry-After` asks for (a number of seconds, or an HTTP date,
    /// counted from now); `nil` when it has none that parses.
    public static func retryAfter(_ head: ResponseHead, now: Date = Date()) -> TimeInterval? {
        guard let value = head.headers["Retry-After"]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.allSatisfy(\.isASCIIDigit) { return TimeInterval(value) }
        return HTTPDate.parse(value).map { max(0, $0.timeIntervalSince(now)) }
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
