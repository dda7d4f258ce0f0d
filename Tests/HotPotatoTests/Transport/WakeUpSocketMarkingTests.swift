#if canImport(Glibc)
import CCurl
import Foundation
import Glibc
import Testing
@testable import HotPotatoTestSupport

/// The library marks close-on-exec the wake-up socket pairs libcurl opens where no option reaches
/// (a multi handle's, FoundationNetworking's), by looking at what appeared while it made them —
/// and nothing else another thread opened meanwhile. Foundation's `Process.run()` leaves one end
/// of a blocking socket pair inheritable on purpose: the child holds it until it exits, and its
/// close is how Foundation learns of the exit. Marked, it closed at the child's exec, Foundation's
/// one process-watching thread waited in `waitpid` for a child that lived on, and no other
/// child's exit was noticed again: every `waitUntilExit()` of the process hung (a CI run did).
@Suite struct WakeUpSocketMarkingTests {
    @Test func onlyWakeUpSocketsOpenedMeanwhileAreMarked() throws {
        let snapshot = hp_descriptors_snapshot()
        // Opened "by another thread" while the library looks: Foundation's process-exit pair and
        // a pipe.
        let processPair = try Self.socketPair(nonBlocking: false)
        var pipeEnds: [Int32] = [0, 0]
        try #require(pipe(&pipeEnds) == 0)
        // As libcurl makes its wake-up pair: unnamed, connected, non-blocking.
        let wakeUpPair = try Self.socketPair(nonBlocking: true)
        hp_descriptors_mark_opened_since(snapshot)
        defer { for fd in processPair + pipeEnds + wakeUpPair { _ = close(fd) } }

        #expect(!processPair.contains(where: Descriptors.isCloseOnExec), "a blocking socket pair was marked")
        #expect(!pipeEnds.contains(where: Descriptors.isCloseOnExec), "a pipe was marked")
        #expect(wakeUpPair.allSatisfy(Descriptors.isCloseOnExec), "the wake-up pair was not marked")
    }

    static func socketPair(nonBlocking: Bool) throws -> [Int32] {
        var ends: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0 else { throw POSIXError(.EMFILE) }
        if nonBlocking {
            for fd in ends { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        }
        return ends
    }
}
#endif
