import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The write end of the pipe the signal handler writes to: set once, before the handler is
/// installed, and only read afterwards.
nonisolated(unsafe) private var interruptPipeWriter: Int32 = -1

/// Turns SIGINT (Ctrl-C) and SIGTERM into a call of `onSignal` on a thread of its own, so that
/// the download can be cancelled and cleaned up (or its partial file kept) before potato exits.
///
/// The handler only writes the signal's number to a pipe: that is all a signal handler may
/// safely do.
enum InterruptWatcher {
    static func install(_ onSignal: @escaping @Sendable (Int32) -> Void) {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else { return }
        // Close-on-exec, as every descriptor potato opens: a child process must not hold it.
        // (Glibc's module has no pipe2; this runs once, at start-up, before any other thread.)
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        interruptPipeWriter = descriptors[1]
        let reader = descriptors[0]
        let thread = Thread {
            var number: UInt8 = 0
            while true {
                let count = read(reader, &number, 1)
                if count == 1 { onSignal(Int32(number)); continue }
                if count < 0 && errno == EINTR { continue }
                return
            }
        }
        thread.start()
        for signalNumber in [SIGINT, SIGTERM] {
            var action = sigaction()
            #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(interruptPipeWriter, &byte, 1)
            }
            #else
            action.__sigaction_u.__sa_handler = { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(interruptPipeWriter, &byte, 1)
            }
            #endif
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(signalNumber, &action, nil)
        }
        // A parent may have started potato with these signals blocked (test runners do).
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGINT)
        sigaddset(&unblock, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
    }
}
