import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Adapts each request before it is sent, and decides after a failure whether to send it again.
///
/// Interceptors are set on a session (``Session/Configuration/interceptors``) and on a request
/// (``Request/intercepted(by:)``); a request's come after its session's. Before every attempt,
/// each one's ``adapt(_:for:)`` runs in that order on the request the chain built (not on the
/// previous attempt's), so a credential refreshed meanwhile replaces the stale one. After a
/// failed attempt, each one's ``retry(_:)`` is asked in the same order; the first answer other
/// than ``RetryDecision/doNotRetry`` is taken, and when every interceptor declines, the call's
/// ``RetryPolicy`` decides.
///
/// ```swift
/// struct APIKey: RequestInterceptor {
///     let key: String
///     func adapt(_ request: URLRequest, for session: Session) async throws -> URLRequest {
///         var request = request
///         request.setValue(key, forHTTPHeaderField: "X-API-Key")
///         return request
///     }
/// }
/// var configuration = Session.Configuration()
/// configuration.interceptors = [APIKey(key: secret)]
/// ```
///
/// Both methods are optional: by default a request is sent as it is and not retried. The redirects
/// of an attempt are not adapted again: each hop follows the redirect rule (see
/// ``Session/Configuration/redirects``), which drops credentials on the way to another
/// origin, whatever an interceptor added.
public protocol RequestInterceptor: Sendable {
    /// Returns the request to send for the next attempt. Throwing fails the call with the error
    /// (a ``HotPotatoError`` as it is, any other error as ``HotPotatoError/Code/invalidRequest``
    /// with it as `underlying`); it is not retried.
    func adapt(_ request: URLRequest, for session: Session) async throws -> URLRequest

    /// Whether to send the request again after `failure`, and when.
    func retry(_ failure: RetryContext) async -> RetryDecision
}

extension RequestInterceptor {
    /// Sends the request as it is.
    public func adapt(_ request: URLRequest, for session: Session) async throws -> URLRequest {
        request
    }

    /// Does not retry: ``RetryDecision/doNotRetry``.
    public func retry(_ failure: RetryContext) async -> RetryDecision {
        .doNotRetry
    }
}
