import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The process's limit on open files (`RLIMIT_NOFILE`): every connection is a descriptor, so
/// 10 000 event streams need more than the usual soft limit of 1 024, in the client and in the
/// server alike.
public enum FileLimit {
    /// The soft and hard limits in force.
    public static func current() -> (soft: Int, hard: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return (0, 0) }
        return (clamp(limit.rlim_cur), clamp(limit.rlim_max))
    }

    /// Raises the soft limit to the hard one (as `ulimit -n $(ulimit -Hn)` would); the soft limit
    /// now in force. Children inherit it.
    @discardableResult
    public static func raiseToHardLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return current().soft
    }

    /// The descriptors a process needs to hold `connections` connections: the connections, and
    /// room for the runtime's own (pipes, epoll, libraries, listening sockets).
    public static func needed(forConnections connections: Int) -> Int { connections + 256 }

    private static func clamp(_ value: rlim_t) -> Int {
        value > rlim_t(Int.max) ? Int.max : Int(value)  // RLIM_INFINITY is all ones
    }
}
