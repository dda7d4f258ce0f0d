import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Runs a call as a series of attempts: each adapted by the interceptors, sent with a handler of
/// its own, and on failure retried as the interceptors or the retry policy decide, after a wait
/// that cancelling the call cuts short. Every attempt reports to one ``ProgressReporter``; the
/// call's ``Completion`` is settled once, with the last attempt's outcome.
///
/// Used only when a call has a retry policy that may retry, interceptors or event monitors; a
/// plain call goes straight from ``Request/start()`` to the engine, without a task.
final class AttemptLoop<Handler: ContentHandler>: CallCancelling where Handler.Content: Sendable {
    let completion = Completion<Handler.Content>()

    private let request: Request<Handler>
    private let retryPolicy: RetryPolicy
    private let interceptors: [any RequestInterceptor]
    private let monitors: EventMonitors?
    private let progress: ProgressReporter
    /// Whether an attempt may follow another: a ``ResumingHandler`` then keeps what it has.
    private let mayRetry: Bool
    /// Where a download keeps the body of one attempt for the next; closed when the call ends.
    private let carry = AttemptCarry()
    private let startTime = DispatchTime.now().uptimeNanoseconds
    /// Whether the session was open when the call started: invalidating it afterwards cancels
    /// the call, even between attempts (a call started on an invalidated session fails with
    /// ``HotPotatoError/Code/invalidRequest``, as its engine says).
    private let startedOnOpenSession: Bool
    private let state = Locked(State())

    private enum Phase {
        /// Between attempts: adapting the request, deciding, or waiting to retry.
        case between
        /// An attempt's transfer is running.
        case transferring(any TransferSink)
        case done
    }

    private struct State {
        var phase = Phase.between
        var cancelled = false
        var task: Task<Void, Never>?
        /// The attempts sent so far.
        var attempts = 0
    }

    init(
        request: Request<Handler>, retryPolicy: RetryPolicy, interceptors: [any RequestInterceptor],
        monitors: EventMonitors?, progress: ProgressReporter
    ) {
        self.request = request
        self.retryPolicy = retryPolicy
        self.interceptors = interceptors
        self.monitors = monitors
        self.progress = progress
        mayRetry = retryPolicy.mayRetry || !interceptors.isEmpty
        startedOnOpenSession = !request.session.isInvalidated
    }

    /// Starts the attempts on a task of their own.
    func begin() {
        // An existential: a closure capturing the generic loop would capture its handler's metatype.
        let runner: any CallCancelling = self
        let task = Task { await runner.run() }
        state.withLock { $0.task = task }
    }

    /// Cancels the call: the running attempt (its handler cleans up), or the wait or adaptation
    /// between attempts, which settles the call at once.
    func cancel() {
        let (sink, task, settleNow) = state.withLock { state -> ((any TransferSink)?, Task<Void, Never>?, Bool) in
            guard !state.cancelled else { return (nil, nil, false) }
            state.cancelled = true
            switch state.phase {
            case .transferring(let sink): return (sink, state.task, false)
            case .between: return (nil, state.task, true)
            case .done: return (nil, nil, false)
            }
        }
        sink?.cancel()
        task?.cancel()
        if settleNow { conclude(.failure(HotPotatoError.requestCancelled)) }
    }

    // MARK: - The attempts

    private var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Whether the session was invalidated since the call started.
    private var sessionWasInvalidated: Bool { startedOnOpenSession && request.session.isInvalidated }

    private var elapsed: TimeInterval {
        Double(DispatchTime.now().uptimeNanoseconds &- startTime) / 1_000_000_000
    }

    func run() async {
        let session = request.session
        let configuration = session.configuration
        let original: URLRequest
        do throws(HotPotatoError) {
            original = try request.spec.makeURLRequest(defaults: configuration)
        } catch {
            conclude(.failure(error))
            return
        }
        monitors?.send(.created(original))
        var observe: (@Sendable (ResponseHead, URLRequest) -> Void)?
        if let monitors {
            observe = { head, next in monitors.send(.redirected(head, to: next)) }
        }
        let redirects = RedirectPolicy(request.options.redirects ?? configuration.redirects, observe: observe)
        var earlierErrors: [HotPotatoError] = []
        while true {
            // Counted when sent (see `send`): an attempt that fails to adapt was not made.
            let attempt = state.withLock { $0.attempts } + 1
            if isCancelled || sessionWasInvalidated { return concludeCancelled() }
            let adapted: URLRequest
            do throws(HotPotatoError) {
                adapted = try await adapt(original, for: session)
            } catch {
                if isCancelled || sessionWasInvalidated { return concludeCancelled() }
                return conclude(.failure(error))
            }
            let sentAt = DispatchTime.now().uptimeNanoseconds
            guard let transfer = send(adapted, attempt: attempt, redirects: redirects) else { return concludeCancelled() }
            let outcome = await transfer.completion.wait()
            let error: HotPotatoError
            switch outcome {
            case .success:
                return conclude(outcome)
            case .failure(let failure):
                error = failure
            }
            state.withLock { if case .transferring = $0.phase { $0.phase = .between } }
            if isCancelled { return concludeCancelled() }
            // An attempt the engine refused because the session was invalidated meanwhile.
            if error.code == .invalidRequest, sessionWasInvalidated { return concludeCancelled() }
            if error.code == .cancelled || !transfer.allowsAnotherAttempt { return conclude(outcome) }
            var context = RetryContext(
                request: adapted, error: error, attempt: attempt, earlierErrors: earlierErrors, elapsed: elapsed,
                session: session)
            context.sentAt = sentAt
            let delay: TimeInterval
            switch await decide(context) {
            case .doNotRetry: return conclude(outcome)
            case .fail(let replacement): return conclude(.failure(replacement))
            case .retry: delay = 0
            case .retryAfter(let seconds): delay = max(0, seconds)
            }
            if let body = request.spec.oneShotBody, body.wasConsumed {
                // A one-shot body is never sent twice: the retry is not made, and the error says why.
                var final = error
                final.reason += " The request was not retried: its body is a one-shot \(body.kind) that was already read."
                return conclude(.failure(final))
            }
            earlierErrors.append(error)
            // Bounded: an interceptor may retry without end, and each error keeps its error body.
            if earlierErrors.count > RetryContext.earlierErrorLimit { earlierErrors.removeFirst() }
            monitors?.send(.retryScheduled(attempt: attempt, delay: delay, error: error))
            if delay > 0 { await wait(delay) }
        }
    }

    /// Waits `delay` seconds before a retry: cut short by a cancel (which cancels the task) or,
    /// within a quarter of a second, by the session's invalidation.
    private func wait(_ delay: TimeInterval) async {
        let end = DispatchTime.now().uptimeNanoseconds &+ UInt64(min(delay, 86_400) * 1_000_000_000)
        while !sessionWasInvalidated {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < end else { return }
            do {
                try await Task.sleep(nanoseconds: min(end - now, 250_000_000))
            } catch {
                return
            }
        }
    }

    /// The original request, adapted by each interceptor in turn.
    private func adapt(_ original: URLRequest, for session: Session) async throws(HotPotatoError) -> URLRequest {
        var adapted = original
        for interceptor in interceptors {
            do {
                adapted = try await interceptor.adapt(adapted, for: session)
            } catch let error as HotPotatoError {
                throw error
            } catch {
                throw HotPotatoError(
                    .invalidRequest, reason: "A request interceptor could not adapt the request: \(error)", underlying: error)
            }
        }
        return adapted
    }

    /// Starts an attempt with a new handler, unless the call was cancelled; registered as the
    /// running attempt before it starts, so that a cancel reaches it.
    private func send(_ adapted: URLRequest, attempt: Int, redirects: RedirectPolicy) -> Transfer<Handler>? {
        let headCallback = request.options.headCallback
        let onHead: (@Sendable (ResponseHead) -> Void)?
        if let monitors {
            onHead = { head in
                headCallback?(head)
                monitors.send(.headReceived(head))
            }
        } else {
            onHead = headCallback
        }
        let carry = mayRetry ? carry : nil
        let transfer = request.makeTransfer(progress: progress, onHead: onHead, finishesProgress: false) { handler in
            if let carry, let resuming = handler as? any ResumingHandler {
                resuming.keepPartialAcrossAttempts(in: carry)
            }
        }
        // Under the lock: a cancel either finds the call cancelled before this, or this transfer
        // registered (and then cancels it, however far it got).
        return state.withLock { state -> Transfer<Handler>? in
            guard !state.cancelled else { return nil }
            state.attempts += 1
            state.phase = .transferring(transfer)
            // As the handler adapted it too (a download's `Range`, `If-Range`, `If-None-Match`); no
            // closure to allocate without monitors.
            let reportSent = monitors.map { monitors in { (sent: URLRequest) in monitors.send(.attemptStarted(sent, attempt: attempt)) } }
            do throws(HotPotatoError) {
                try request.send(adapted, through: transfer, redirects: redirects, call: self, adapted: reportSent)
            } catch {
                transfer.fail(error)
            }
            return transfer
        }
    }

    /// The first decision other than ``RetryDecision/doNotRetry`` among the interceptors', else
    /// the retry policy's.
    private func decide(_ context: RetryContext) async -> RetryDecision {
        for interceptor in interceptors {
            let decision = await interceptor.retry(context)
            if decision != .doNotRetry { return decision }
        }
        return retryPolicy.decision(for: context)
    }

    private func concludeCancelled() {
        conclude(.failure(HotPotatoError.requestCancelled))
    }

    /// Settles the call (once): closes the body kept across attempts, if any (the call failed),
    /// says how many attempts there were, ends progress, and tells the monitors.
    private func conclude(_ outcome: Completion<Handler.Content>.Outcome) {
        let (first, attempts) = state.withLock { state -> (Bool, Int) in
            if case .done = state.phase { return (false, state.attempts) }
            state.phase = .done
            return (true, state.attempts)
        }
        guard first else { return }
        carry.discard()
        var final = outcome
        if case .failure(var error) = outcome {
            if mayRetry { error.attempts = attempts }
            final = .failure(error)
        }
        progress.finish()
        if let monitors {
            let summary: RequestEvent.Summary
            switch final {
            case .success(let response):
                summary = RequestEvent.Summary(
                    head: response.head, error: nil, attempts: attempts, duration: elapsed, timings: response.timings)
            case .failure(let error):
                summary = RequestEvent.Summary(head: error.head, error: error, attempts: attempts, duration: elapsed, timings: error.timings)
            }
            monitors.send(.finished(summary))
        }
        completion.settle(final)
    }
}

/// A call run as a series of attempts, as its ``Call`` and its task see it.
protocol CallCancelling: Sendable {
    /// Runs the attempts to the end.
    func run() async
    func cancel()
}
