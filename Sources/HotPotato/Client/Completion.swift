import Foundation

/// The outcome of one call, settled once, awaited or observed by any number of parties.
final class Completion<Content: Sendable>: Sendable {
    typealias Outcome = Result<Response<Content>, HotPotatoError>

    private struct State {
        var outcome: Outcome?
        var waiters: [CheckedContinuation<Outcome, Never>] = []
        var observers: [@Sendable (Outcome) -> Void] = []
    }

    private let state = Locked(State())

    /// Settles the outcome; later calls are ignored. Returns whether this call settled it.
    @discardableResult
    func settle(_ outcome: Outcome) -> Bool {
        typealias Parties = (waiters: [CheckedContinuation<Outcome, Never>], observers: [@Sendable (Outcome) -> Void])
        let parties: Parties? = state.withLock { state in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            defer { state.waiters = []; state.observers = [] }
            return (state.waiters, state.observers)
        }
        guard let parties else { return false }
        for waiter in parties.waiters { waiter.resume(returning: outcome) }
        for observer in parties.observers { observer(outcome) }
        return true
    }

    var outcome: Outcome? {
        state.withLock { $0.outcome }
    }

    /// Waits for the outcome.
    func wait() async -> Outcome {
        await withCheckedContinuation { continuation in
            let ready: Outcome? = state.withLock { state in
                if let outcome = state.outcome { return outcome }
                state.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Calls `observer` with the outcome, at once if it is settled.
    func observe(_ observer: @escaping @Sendable (Outcome) -> Void) {
        let ready: Outcome? = state.withLock { state in
            if let outcome = state.outcome { return outcome }
            state.observers.append(observer)
            return nil
        }
        if let ready { observer(ready) }
    }
}
