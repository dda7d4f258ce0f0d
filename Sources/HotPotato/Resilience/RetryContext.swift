import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A failed attempt, as a ``RequestInterceptor`` or ``RetryPolicy`` sees it when deciding
/// whether to send the request again.
public struct RetryContext: Sendable {
    /// The request the attempt sent (as the interceptors adapted it; before any redirect).
    public let request: URLRequest
    /// Why the attempt failed. A rejected status carries its ``HotPotatoError/head`` (with
    /// `Retry-After`, if sent) and ``HotPotatoError/errorBody``.
    public let error: HotPotatoError
    /// How many attempts have been made, this one included (1 after the first).
    public let attempt: Int
    /// The errors of the attempts before this one, oldest first: the last
    /// ``earlierErrorLimit`` of them.
    public let earlierErrors: [HotPotatoError]
    /// How many earlier errors a context keeps at most.
    public static let earlierErrorLimit = 16
    /// Seconds since the call began.
    public let elapsed: TimeInterval
    /// The session sending the request.
    public let session: Session
    /// When the failed attempt was sent (`DispatchTime` uptime, in nanoseconds): a
    /// ``BearerAuthenticator`` fails the attempts sent before a refresh failed with that
    /// refresh's error, rather than refresh again for each.
    var sentAt: UInt64 = DispatchTime.now().uptimeNanoseconds

    /// The request method.
    public var method: HTTPMethod { HTTPMethod(rawValue: (request.httpMethod ?? "GET").uppercased()) }

    /// Creates a context, for testing an interceptor of your own.
    public init(
        request: URLRequest, error: HotPotatoError, attempt: Int, earlierErrors: [HotPotatoError] = [],
        elapsed: TimeInterval = 0, session: Session
    ) {
        self.request = request
        self.error = error
        self.attempt = attempt
        self.earlierErrors = earlierErrors
        self.elapsed = elapsed
        self.session = session
    }
}
