import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(os)
import os
#endif

/// A lock for critical sections of a few instructions that two threads take at a high rate —
/// the libcurl engine's hand-off between its I/O thread and a delivery thread, a transfer's
/// flags — which spins briefly before it sleeps.
///
/// `NSLock` on Linux is a plain `pthread_mutex_t`: a thread that finds it taken sleeps in the
/// kernel at once, and the holder pays a `futex` wake-up to release it, even when the section
/// takes a few nanoseconds. A 1 GiB download made tens of thousands of such sleeps and wake-ups
/// between the I/O thread and the delivery thread. This lock is glibc's adaptive mutex on Linux
/// (it spins a while first) and `os_unfair_lock` on Apple platforms. Never hold it across a
/// handler, a system call that may block, or another lock's wait.
final class AdaptiveLock: @unchecked Sendable {
    #if canImport(Glibc)
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    #elseif canImport(os)
    private let unfair: UnsafeMutablePointer<os_unfair_lock>
    #endif

    init() {
        #if canImport(Glibc)
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        #elseif canImport(os)
        unfair = .allocate(capacity: 1)
        unfair.initialize(to: os_unfair_lock())
        #endif
    }

    deinit {
        #if canImport(Glibc)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        #elseif canImport(os)
        unfair.deinitialize(count: 1)
        unfair.deallocate()
        #endif
    }

    func lock() {
        #if canImport(Glibc)
        pthread_mutex_lock(mutex)
        #elseif canImport(os)
        os_unfair_lock_lock(unfair)
        #endif
    }

    func unlock() {
        #if canImport(Glibc)
        pthread_mutex_unlock(mutex)
        #elseif canImport(os)
        os_unfair_lock_unlock(unfair)
        #endif
    }

    /// Runs `body` holding the lock.
    @inline(__always)
    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}
