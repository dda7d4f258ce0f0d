import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Something that happened to a request, as an ``EventMonitor`` receives it.
public struct RequestEvent: Sendable {
    /// What happened. More cases may come: switch over it with a `default`.
    public enum Kind: Sendable {
        /// The chain's request, with the session's defaults applied, before any interceptor.
        case created(URLRequest)
        /// An attempt is being sent: the request as the interceptors and the handler adapted it
        /// (a download's `Range`, `If-Range`, `If-None-Match` …), and its number (from 1).
        case attemptStarted(URLRequest, attempt: Int)
        /// A redirect is being followed: the redirect's head, and the request sent next, with the
        /// cookies the session's store adds to it (`Cookie`). Only the engine's default
        /// `User-Agent` (`HotPotato`, for a request without one) is not in it.
        case redirected(ResponseHead, to: URLRequest)
        /// The head of the final response of an attempt, before its handler sees it.
        case headReceived(ResponseHead)
        /// The body's progress, throttled as ``Call/progress`` is.
        case progress(TransferProgress)
        /// An attempt failed and the request will be sent again after `delay` seconds.
        case retryScheduled(attempt: Int, delay: TimeInterval, error: HotPotatoError)
        /// The call completed.
        case finished(Summary)
    }

    /// How a call ended.
    public struct Summary: Sendable {
        /// The last response's head, if one arrived.
        public let head: ResponseHead?
        /// The error the call failed with, or `nil` when it succeeded.
        public let error: HotPotatoError?
        /// How many times the request was sent.
        public let attempts: Int
        /// Seconds from the call's start to its end, every attempt and wait included.
        public let duration: TimeInterval
        /// The last attempt's timings, when it got as far as sending the request (see
        /// ``HotPotatoError/timings`` for a failure).
        public let timings: TransferTimings?

        /// The last response's status, if one arrived.
        public var status: Int? { head?.status ?? error?.status }
    }

    /// The call's number, the same for all its events; unique within the process.
    public let requestID: Int
    /// The request's method.
    public let method: HTTPMethod
    /// The request's URL (the first one, before redirects).
    public let url: URL?
    /// When it happened.
    public let date: Date
    /// What happened.
    public let kind: Kind
}
