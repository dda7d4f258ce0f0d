import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `potato get --events` as EventSource behaves: only `200` starts a stream (exit 9 otherwise); a
/// stream the server ends is resumed with `Last-Event-ID` under `--retry`; a `204` or a rejected
/// reconnection ends it for good; `--retry`, `--retry-delay` and `--retry-max-time` bound the
/// reconnections of a server that drops every connection or asks for `retry: 0`; `--max-size`
/// counts every field of an event. Connections are counted, and their arrivals timed, by the
/// fault server; a wait is only ever checked from below (a sleep is never shorter than asked).
@Suite struct PotatoEventsReconnectionTests {
    static func tag(_ label: String) -> String { "potato-\(label)-\(UUID().uuidString.prefix(8))" }

    static func ids(_ outcome: PotatoProcess.Outcome) throws -> [String?] {
        try PotatoEventsTests.lines(outcome).map { $0["id"]?.stringValue }
    }

    /// Runs potato, killing it (and failing the test) if it has not exited on its own within
    /// `seconds`: a command that reconnects forever must not hang the suite.
    static func runBounded(
        _ arguments: [String], seconds: Double = 60, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> PotatoProcess.Outcome {
        let (outcome, exited) = try await offThePool {
            let potato = try PotatoProcess(arguments)
            let exited = PotatoProcess.waitUntil(seconds: seconds) { !potato.process.isRunning }
            if !exited { potato.send(SIGKILL) }
            return (try potato.wait(), exited)
        }
        #expect(exited, "potato was still running after \(seconds) s", sourceLocation: sourceLocation)
        return outcome
    }

    @Test(arguments: allEngineNames, [210, 299])
    func aStatusOtherThan200FailsWithoutPrintingEvents(engine: String, status: Int) async throws {
        let server = try await TestServers.fault()
        let url = server.url("/events?count=3&status=\(status)").absoluteString
        let outcome = try await Self.runBounded(["get", "--events", url, "--retry", "2", "--engine", engine])
        #expect(outcome.status == 9, "\(outcome.error)")
        #expect(outcome.output.isEmpty)
        #expect(outcome.error.contains("HTTP \(status)"), "\(outcome.error)")
    }

    @Test(arguments: allEngineNames)
    func retryResumesAStreamTheServerEndedUntilA204(engine: String) async throws {
        let server = try await TestServers.fault()
        let tag = Self.tag("ended")
        let url = server.url("/events?count=5&perConnection=2&endEach=1&finalStatus=204&record=\(tag)").absoluteString
        let outcome = try await Self.runBounded(["get", "--events", url, "--retry", "3", "--retry-delay", "0", "--engine", engine])
        #expect(outcome.status == 0, "\(outcome.error)")
        #expect(try Self.ids(outcome) == ["1", "2", "3", "4", "5"])
        #expect(EventStreamProcessingModelTests.lastEventIDs(tag) == [nil, "2", "4", "5"], "the 204 ended it")
        // Without --retry, the end of the body is the end.
        let once = try await Self.runBounded(["get", "--events", url, "--engine", engine])
        #expect(once.status == 0)
        #expect(try Self.ids(once) == ["1", "2"])
    }

    @Test(arguments: allEngineNames)
    func aReconnectionAnswered503EndsTheCommand(engine: String) async throws {
        let server = try await TestServers.fault()
        let tag = Self.tag("503")
        let url = server.url("/events?count=6&perConnection=3&reconnectStatus=503&record=\(tag)").absoluteString
        let outcome = try await Self.runBounded(["get", "--events", url, "--retry", "2", "--retry-delay", "0", "--engine", engine])
        #expect(outcome.status == 9, "\(outcome.error)")
        #expect(try Self.ids(outcome) == ["1", "2", "3"])
        #expect(outcome.error.contains("token expired"), "the server's message: \(outcome.error)")
        #expect(FaultServer.eventRequests(tag).count == 2, "one reconnection, never retried")
    }

    @Test func aServerDroppingAfterEachEventSpendsTheRetriesWithGrowingWaits() async throws {
        let server = try await TestServers.fault()
        let tag = Self.tag("drops")
        let url = server.url("/events?count=100000&perConnection=1&record=\(tag)").absoluteString
        let outcome = try await Self.runBounded(["get", "--events", url, "--retry", "3", "--retry-delay", "0.2"])
        #expect([8, 12].contains(outcome.status), "a dropped connection: \(outcome.status) \(outcome.error)")
        #expect(try Self.ids(outcome) == ["1", "2", "3", "4"])
        let arrivals = FaultServer.eventRequests(tag).map(\.arrival)
        #expect(arrivals.count == 4, "three reconnections though every connection delivered an event")
        // 0.2 s, then 0.4, then 0.8, each less at most half of it by the jitter.
        let gaps = zip(arrivals, arrivals.dropFirst()).map { $1 - $0 }
        for (gap, least) in zip(gaps, [0.1, 0.2, 0.4]) {
            #expect(gap >= least, "gaps \(gaps)")
        }
    }

    @Test func aRetryZeroStormIsBoundedByTheFloorAndTheTimeBudget() async throws {
        let server = try await TestServers.fault()
        let tag = Self.tag("storm")
        let url = server.url("/events?count=100000&perConnection=1&retry=0&record=\(tag)").absoluteString
        let outcome = try await Self.runBounded(
            ["get", "--events", url, "--retry", "3", "--retry-delay", "1", "--retry-max-time", "2"])
        #expect([8, 12].contains(outcome.status), "\(outcome.status) \(outcome.error)")
        let arrivals = FaultServer.eventRequests(tag).map(\.arrival)
        // The first wait is the floor, 1 s; the second at least 1 s more would start after 2 s.
        #expect((1...2).contains(arrivals.count), "\(arrivals.count) connections; --retry 3 alone would allow 4")
        #expect(zip(arrivals, arrivals.dropFirst()).allSatisfy { $1 - $0 >= 1 }, "retry: 0 is raised to 1 s")
    }

    @Test func a204ToAReconnectionEndsTheCommandWell() async throws {
        let server = try await TestServers.fault()
        let tag = Self.tag("204")
        let url = server.url("/events?count=3&reconnectStatus=204&record=\(tag)").absoluteString
        let outcome = try await Self.runBounded(["get", "--events", url, "--retry", "5", "--retry-delay", "0"])
        #expect(outcome.status == 0, "\(outcome.error)")
        #expect(try Self.ids(outcome) == ["1", "2", "3"])
        #expect(FaultServer.eventRequests(tag).count == 2)
    }

    @Test func theRequestAsksForAFreshEventStreamUnlessTheUserSaysOtherwise() async throws {
        let server = try await TestServers.fault()
        let plain = Self.tag("headers")
        _ = try await Self.runBounded(["get", "--events", server.url("/events?count=1&record=\(plain)").absoluteString])
        #expect(FaultServer.eventRequests(plain).first?.headers["cache-control"] == "no-cache")
        #expect(FaultServer.eventRequests(plain).first?.headers["accept"] == "text/event-stream")
        let own = Self.tag("own")
        _ = try await Self.runBounded([
            "get", "--events", server.url("/events?count=1&record=\(own)").absoluteString, "-H", "Cache-Control: max-age=0",
        ])
        #expect(FaultServer.eventRequests(own).first?.headers["cache-control"] == "max-age=0")
    }

    @Test(arguments: allEngineNames)
    func maxSizeCountsTheIDAndTypeOfAnEvent(engine: String) async throws {
        let server = try await TestServers.fault()
        // An `id:`, an `event:` and a data line of a million bytes each: every line is under 1M,
        // the event is 3 MB.
        let url = server.url("/events?count=1&fat=1000000&pad=1000000").absoluteString
        let outcome = try await Self.runBounded(["get", "--events", url, "--max-size", "1M", "--engine", engine])
        #expect(outcome.status == 11, "\(outcome.error)")
        #expect(outcome.output.isEmpty)
        #expect(outcome.error.contains("the limit is --max-size 1048576 bytes"), "\(outcome.error)")
    }
}
