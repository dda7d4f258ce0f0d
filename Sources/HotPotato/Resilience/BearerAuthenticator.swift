import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends a bearer token with every request, and refreshes it when it has expired or a response
/// says `401 Unauthorized`, then retries: an interceptor (see ``RequestInterceptor``).
///
/// ```swift
/// let authenticator = BearerAuthenticator(credential: saved) { stale in
///     try await tokenService.refresh(using: stale?.refreshToken)   // → BearerCredential
/// }
/// var configuration = Session.Configuration()
/// configuration.interceptors = [authenticator]
/// configuration.retryPolicy = RetryPolicy()          // optional: other failures too
/// let session = Session(configuration: configuration)
/// ```
///
/// - **One refresh at a time.** However many requests fail with `401` at once, the refresh closure
///   runs once; the others wait for it and are retried with the new token. A request whose `401`
///   answered a token that has been replaced since is retried with the new one, without another
///   refresh.
/// - **Once per call.** A call is retried after a `401` once: a second `401` is the call's error
///   (the server rejects even a fresh token).
/// - **A failed refresh** fails every request waiting for it, and every request sent with the
///   same token before it failed, with ``HotPotatoError/Code/authenticationFailed``, the
///   refresh's error as `underlying` (and the `401` as `head` and `errorBody` for those that had
///   one); a request sent afterwards tries again.
/// - **Expiry.** A credential with ``BearerCredential/expiresAt`` within ``refreshMargin`` seconds
///   is refreshed before the request is sent.
/// - **Origins.** With `origins`, only requests to those origins (scheme, host and port) get the
///   token; a redirect to another origin drops it, as every credential header is.
public final class BearerAuthenticator: RequestInterceptor {
    /// Seconds before ``BearerCredential/expiresAt`` at which a credential counts as expired.
    public let refreshMargin: TimeInterval
    private let origins: [URL]
    private let refresh: @Sendable (BearerCredential?) async throws -> BearerCredential
    private let state: Locked<State>

    private struct State {
        var credential: BearerCredential?
        var refreshing: Task<BearerCredential, any Error>?
        var refreshCount = 0
        /// The last refresh that failed: when it ended, the token it was to replace, its error.
        var failure: (endedAt: UInt64, stale: String?, error: HotPotatoError)?
    }

    /// Creates an authenticator.
    /// - Parameters:
    ///   - credential: The credential to start with; `nil` refreshes before the first request.
    ///   - origins: The origins to send the token to (`https://api.example.com`); empty, the
    ///     default, sends it with every request of the session.
    ///   - refreshMargin: Seconds before expiry at which to refresh; default 30.
    ///   - refresh: Gets a new credential, given the current one (`nil` when there is none). Its
    ///     error fails the requests that wait for it.
    public init(
        credential: BearerCredential? = nil, origins: [URL] = [], refreshMargin: TimeInterval = 30,
        refresh: @escaping @Sendable (BearerCredential?) async throws -> BearerCredential
    ) {
        state = Locked(State(credential: credential))
        self.origins = origins
        self.refreshMargin = refreshMargin
        self.refresh = refresh
    }

    /// The credential sent now.
    public var credential: BearerCredential? { state.withLock { $0.credential } }

    /// How many times the refresh closure has been called.
    public var refreshCount: Int { state.withLock { $0.refreshCount } }

    /// Sets `Authorization: Bearer` with the current credential, refreshing it first when there is
    /// none or it has expired.
    public func adapt(_ request: URLRequest, for session: Session) async throws -> URLRequest {
        guard applies(to: request.url) else { return request }
        let current = state.withLock { $0.credential }
        let credential: BearerCredential
        if let current, !current.expires(within: refreshMargin) {
            credential = current
        } else {
            credential = try await refreshed(replacing: current?.accessToken, head: nil, errorBody: nil)
        }
        var request = request
        request.setValue("Bearer \(credential.accessToken)", forHTTPHeaderField: "Authorization")
        return request
    }

    /// After a `401` to a request that carried a token: refreshes (once for every request that
    /// sent the same token) and retries, once per call.
    public func retry(_ failure: RetryContext) async -> RetryDecision {
        guard failure.error.code == .unacceptableStatus, failure.error.status == 401, applies(to: failure.request.url),
              !failure.earlierErrors.contains(where: { $0.code == .unacceptableStatus && $0.status == 401 })
        else { return .doNotRetry }
        let sent = Self.token(in: failure.request)
        // An attempt sent before a refresh for its token failed shares that failure: the refresh
        // was its refresh too. Attempts sent afterwards try again.
        if let earlier = state.withLock({ $0.failure }), earlier.stale == sent, failure.sentAt < earlier.endedAt {
            var error = earlier.error
            error.head = failure.error.head
            error.errorBody = failure.error.errorBody
            return .fail(error)
        }
        do {
            _ = try await refreshed(replacing: sent, head: failure.error.head, errorBody: failure.error.errorBody)
            return .retry
        } catch let error as HotPotatoError {
            return .fail(error)
        } catch {
            return .fail(HotPotatoError(.authenticationFailed, reason: "Refreshing the credential failed: \(error)", underlying: error))
        }
    }

    // MARK: - Private

    /// A credential newer than the token `stale`: the current one if it already is (another
    /// request refreshed it), else the result of the refresh in flight, or of a new one.
    private func refreshed(replacing stale: String?, head: ResponseHead?, errorBody: ErrorBody?) async throws -> BearerCredential {
        let refresh = refresh
        let margin = refreshMargin
        let (ready, task) = state.withLock { state -> (BearerCredential?, Task<BearerCredential, any Error>?) in
            if let current = state.credential, current.accessToken != stale, !current.expires(within: margin) {
                return (current, nil)
            }
            if let refreshing = state.refreshing { return (nil, refreshing) }
            let current = state.credential
            let task = Task { try await refresh(current) }
            state.refreshing = task
            state.refreshCount += 1
            return (nil, task)
        }
        if let ready { return ready }
        guard let task else { throw HotPotatoError(.authenticationFailed, reason: "No credential.") }
        do {
            let credential = try await task.value
            state.withLock { state in
                if state.refreshing == task {
                    state.credential = credential
                    state.refreshing = nil
                }
            }
            return credential
        } catch {
            var failure = HotPotatoError(
                .authenticationFailed, reason: "Refreshing the bearer credential failed: \(error)", head: head, underlying: error)
            let ended = DispatchTime.now().uptimeNanoseconds
            state.withLock { state in
                if state.refreshing == task {
                    state.refreshing = nil
                    state.failure = (ended, stale, failure)
                }
            }
            failure.errorBody = errorBody
            throw failure
        }
    }

    private func applies(to url: URL?) -> Bool {
        guard !origins.isEmpty else { return true }
        guard let url else { return false }
        return origins.contains { RedirectPolicy.sameOrigin($0, url) }
    }

    /// The bearer token a request carried, if any.
    private static func token(in request: URLRequest) -> String? {
        guard let value = request.value(forHTTPHeaderField: "Authorization") else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return String(parts[1]).trimmingCharacters(in: .whitespaces)
    }
}
