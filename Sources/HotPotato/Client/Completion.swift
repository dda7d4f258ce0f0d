import Foundation

/// The outcome of one call, settled once, awaited or observed by any number of parties.
final class Completion<Content: Sendable>: Sendable {
    typealias Outcome = Result<Response<Content>, HotPotatoError>

    private struct State {
        var outcome: Outcome?
        /// Resumed with the outcome, or with `nil` to run ``work`` first (see ``handOff(_:)``).
        var waiters: [CheckedContinuation<Outcome?, Never>] = []
        var observers: [@Sendable (Outcome) -> Void] = []
        /// Work that settles the outcome, handed to the waiter resumed with `nil`.
        var work: (any DeliveryJob)?
    }

    private let state = Locked(State())

    /// Settles the outcome; later calls are ignored. Returns whether this call settled it.
    @discardableResult
    func settle(_ outcome: Outcome) -> Bool {
        typealias Parties = (waiters: [CheckedContinuation<Outcome?, Never>], observers: [@Sendable (Outcome) -> Void])
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

    /// Hands `work`, which settles the outcome when it runs, to a caller waiting for it, to run on
    /// that caller's thread as it resumes — the thread resuming it was to be woken anyway, and the one handing
    /// the work off (an engine's I/O thread) is free sooner. `false` when nobody waits yet, or the
    /// outcome is settled: the caller then runs `work` itself.
    func handOff(_ work: any DeliveryJob) -> Bool {
        let waiter = state.withLock { state -> CheckedContinuation<Outcome?, Never>? in
            guard state.outcome == nil, state.work == nil, !state.waiters.isEmpty else { return nil }
            state.work = work
            return state.waiters.removeFirst()
        }
        guard let waiter else { return false }
        waiter.resume(returning: nil)
        return true
    }

    var outcome: Outcome? {
        state.withLock { $0.outcome }
    }

    /// Waits for the outcome, running the work that settles it when it is handed here.
    func wait() async -> Outcome {
        while true {
            let settled: Outcome? = await withCheckedContinuation { continuation in
                let ready: Outcome? = state.withLock { state in
                    if let outcome = state.outcome { return outcome }
                    state.waiters.append(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
            if let settled { return settled }
            let work = state.withLock { state -> (any DeliveryJob)? in
                defer { state.work = nil }
                return state.work
            }
            work?.run()
            // Settled by the work, or by a cancel meanwhile; otherwise wait on.
            if let outcome { return outcome }
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
