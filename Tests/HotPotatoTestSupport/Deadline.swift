import Foundation
@testable import HotPotato

/// Runs `work` in a task of its own and returns whether it finished within `seconds`.
///
/// The deadline is kept by a thread of its own, not by a task: a deadlock that blocks Swift's
/// cooperative threads (two on a 2-core machine) must still end the wait, so that a hang fails
/// the test instead of stalling the test process. Work that misses the deadline is abandoned,
/// still running (or stuck).
func finishes(within seconds: TimeInterval, _ work: @escaping @Sendable () async -> Void) async -> Bool {
    let done = DispatchSemaphore(value: 0)
    let answered = Locked(false)
    return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        let answer: @Sendable (Bool) -> Void = { inTime in
            let first = answered.withLock { answered -> Bool in
                defer { answered = true }
                return !answered
            }
            if first { continuation.resume(returning: inTime) }
        }
        Task {
            await work()
            done.signal()
            answer(true)
        }
        let clock = Thread {
            if done.wait(timeout: .now() + seconds) == .timedOut { answer(false) }
        }
        clock.name = "HotPotatoTests.deadline"
        clock.start()
    }
}
