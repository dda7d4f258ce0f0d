import Foundation

/// A value protected by a lock: HotPotato's tiny internal lock, so that no availability floor is
/// needed for `Mutex`. The lock spins briefly before it sleeps (``AdaptiveLock``): what it guards
/// is only ever read or set, never held across work.
final class Locked<Value>: @unchecked Sendable {
    private let lock = AdaptiveLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    @discardableResult
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
