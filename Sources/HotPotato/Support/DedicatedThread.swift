import Foundation

/// Whether the current thread belongs to HotPotato alone, so that a handler may block it to hold
/// a transfer back.
///
/// libcurl's workers are such threads: blocking one stops its transfer from reading, and TCP does
/// the rest. URLSession's delegate queue is not: it runs on libdispatch's shared pool — on Linux
/// the same pool Swift concurrency's tasks run on — so blocking it until a task consumes would
/// starve that task.
enum DedicatedThread {
    private static let key = "HotPotato.dedicatedTransferThread"

    /// Marks the current thread as dedicated; called by the thread's owner when it starts.
    static func markCurrent() {
        Thread.current.threadDictionary[key] = true
    }

    static var isCurrent: Bool {
        Thread.current.threadDictionary[key] as? Bool ?? false
    }
}
