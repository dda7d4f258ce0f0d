import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// The retry policy's decisions, without a network: what is retried, the backoff and its jitter,
/// the attempt and time limits.
@Suite struct RetryPolicyTests {
    static let session = Session(engine: .urlSession)

    static func context(
        _ error: HotPotatoError, method: String = "GET", attempt: Int = 1, elapsed: TimeInterval = 0
    ) -> RetryContext {
        var request = URLRequest(url: URL(string: "http://127.0.0.1/x")!)
        request.httpMethod = method
        return RetryContext(request: request, error: error, attempt: attempt, elapsed: elapsed, session: session)
    }

    static func status(_ status: Int, headers: HTTPHeaders = [:]) -> HotPotatoError {
        HotPotatoError(.unacceptableStatus, reason: "status", head: ResponseHead(status: status, headers: headers))
    }

    @Test func transientFailuresOfIdempotentMethodsAreRetried() {
        let policy = RetryPolicy(initialDelay: 0, jitter: 0)
        for code in [HotPotatoError.Code.connectionRefused, .connectionLost, .truncatedBody, .timedOut, .hostNotFound] {
            #expect(policy.decision(for: Self.context(HotPotatoError(code, reason: "x"))) == .retryAfter(0), "\(code)")
        }
        for status in [408, 429, 500, 502, 503, 504] {
            #expect(policy.decision(for: Self.context(Self.status(status))) == .retryAfter(0), "\(status)")
        }
        for method in ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"] {
            #expect(policy.decision(for: Self.context(Self.status(503), method: method)) == .retryAfter(0), "\(method)")
        }
    }

    @Test func otherFailuresAndMethodsAreNot() {
        let policy = RetryPolicy(initialDelay: 0, jitter: 0)
        for code in [HotPotatoError.Code.invalidJSON, .tlsFailure, .cancelled, .writeFailed, .tooManyRedirects] {
            #expect(policy.decision(for: Self.context(HotPotatoError(code, reason: "x"))) == .doNotRetry, "\(code)")
        }
        for status in [400, 401, 403, 404, 501] {
            #expect(policy.decision(for: Self.context(Self.status(status))) == .doNotRetry, "\(status)")
        }
        for method in ["POST", "PATCH"] {
            #expect(policy.decision(for: Self.context(Self.status(503), method: method)) == .doNotRetry, "\(method)")
        }
    }

    @Test func theAttemptLimitCountsTheFirstAttempt() {
        let policy = RetryPolicy(maximumAttempts: 3, initialDelay: 0, jitter: 0)
        #expect(policy.decision(for: Self.context(Self.status(503), attempt: 2)) == .retryAfter(0))
        #expect(policy.decision(for: Self.context(Self.status(503), attempt: 3)) == .doNotRetry)
        #expect(RetryPolicy.never.decision(for: Self.context(Self.status(503))) == .doNotRetry)
    }

    @Test func backoffGrowsUpToItsCapAndJitterOnlyShortensIt() {
        let policy = RetryPolicy(initialDelay: 0.5, multiplier: 2, maximumDelay: 3, jitter: 0.5)
        #expect(policy.backoff(afterAttempt: 1, random: 0) == 0.5)
        #expect(policy.backoff(afterAttempt: 2, random: 0) == 1)
        #expect(policy.backoff(afterAttempt: 3, random: 0) == 2)
        #expect(policy.backoff(afterAttempt: 4, random: 0) == 3)
        #expect(policy.backoff(afterAttempt: 40, random: 0) == 3)
        #expect(policy.backoff(afterAttempt: 3, random: 0.999_999) > 1)
        #expect(policy.backoff(afterAttempt: 3, random: 0.5) == 1.5)
        for _ in 0..<100 {
            let wait = policy.delay(after: Self.context(Self.status(503), attempt: 2))
            #expect(wait > 0.5 && wait <= 1)
        }
    }

    @Test func retryAfterReplacesTheBackoffUpToItsCap() {
        let policy = RetryPolicy(initialDelay: 5, jitter: 0, maximumRetryAfter: 60)
        #expect(policy.decision(for: Self.context(Self.status(503, headers: ["Retry-After": "7"]))) == .retryAfter(7))
        #expect(policy.decision(for: Self.context(Self.status(429, headers: ["Retry-After": "3600"]))) == .retryAfter(60))
        #expect(policy.decision(for: Self.context(Self.status(503, headers: ["Retry-After": "soon"]))) == .retryAfter(5))
    }

    @Test func theTimeLimitStopsRetriesThatWouldStartTooLate() {
        let policy = RetryPolicy(initialDelay: 2, jitter: 0, maximumElapsedTime: 10)
        #expect(policy.decision(for: Self.context(Self.status(503), elapsed: 7)) == .retryAfter(2))
        #expect(policy.decision(for: Self.context(Self.status(503), elapsed: 9)) == .doNotRetry)
    }
}

/// `Retry-After` in both of its forms.
@Suite struct RetryAfterTests {
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    @Test func secondsAndDatesParse() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        func parse(_ value: String) -> TimeInterval? {
            RetryPolicy.retryAfter(ResponseHead(status: 503, headers: ["Retry-After": value]), now: now)
        }
        #expect(parse("120") == 120)
        #expect(parse(" 0 ") == 0)
        #expect(parse(Self.httpDate(now.addingTimeInterval(90))) == 90)
        #expect(parse("Tuesday, 14-Nov-23 22:12:20 GMT") == 0, "an RFC 850 date in the past waits nothing")
        #expect(parse("Tue Nov 14 22:13:50 2023") == 30, "asctime")
        #expect(parse("-5") == nil)
        #expect(parse("1.5") == nil)
        #expect(parse("") == nil)
    }
}
