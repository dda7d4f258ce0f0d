import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// The reconnection schedule as a function: the base (the server's `retry:` or the delay) raised
/// to the floor, doubled for each attempt since the last connection that stayed up, capped, less
/// the jitter's draw, and never under the floor; what a connection's end allows; the time budget.
@Suite struct EventStreamReconnectionScheduleTests {
    static let policy = EventStreamReconnection()

    @Test func theDefaultsGrowFromThreeSecondsToTheCap() {
        let full = (1...7).map { Self.policy.wait(forAttempt: $0, serverMilliseconds: nil, random: 0) }
        #expect(full == [3, 6, 12, 24, 30, 30, 30])
        // The most jitter takes off half.
        let shortest = (1...5).map { Self.policy.wait(forAttempt: $0, serverMilliseconds: nil, random: 1) }
        #expect(shortest == [1.5, 3, 6, 12, 15])
    }

    @Test func theServersRetryIsTheBaseAboveTheFloor() {
        #expect(Self.policy.wait(forAttempt: 1, serverMilliseconds: 2500, random: 0) == 2.5)
        #expect(Self.policy.wait(forAttempt: 2, serverMilliseconds: 2500, random: 0) == 5)
        // retry: 0, or any wait under a second, is raised to the floor, jitter or not.
        for random in [0, 0.5, 0.999] {
            #expect(Self.policy.wait(forAttempt: 1, serverMilliseconds: 0, random: random) == 1)
            #expect(Self.policy.wait(forAttempt: 1, serverMilliseconds: 200, random: random) == 1)
        }
        #expect(Self.policy.wait(forAttempt: 3, serverMilliseconds: 0, random: 0) == 4)
        // A server's retry longer than the cap is cut to it.
        #expect(Self.policy.wait(forAttempt: 1, serverMilliseconds: 3_600_000, random: 0) == 30)
        #expect(Self.policy.wait(forAttempt: 1, serverMilliseconds: Int.max, random: 0) == 30)
    }

    @Test func noFloorOnlyWhenAskedAndNothingTraps() {
        let eager = EventStreamReconnection(delay: 0, minimumDelay: 0)
        #expect(eager.wait(forAttempt: 50, serverMilliseconds: nil, random: 0) == 0)
        let odd = EventStreamReconnection(delay: .nan, maximumDelay: .infinity, minimumDelay: -1, multiplier: .infinity, jitter: .nan)
        for attempt in [1, 2, 1000, Int.max] {
            let wait = odd.wait(forAttempt: attempt, serverMilliseconds: 1000, random: 0.5)
            #expect(wait.isFinite && wait >= 0 && wait <= EventStreamReconnection.longestWait)
        }
    }

    @Test func whatAConnectionsEndAllows() {
        let ok = head(200, contentType: "text/event-stream")
        #expect(Self.policy.reconnects(after: .success(()), head: ok))
        #expect(!Self.policy.reconnects(after: .success(()), head: head(204)))
        var once = Self.policy
        once.reconnectsAfterEnd = false
        #expect(!once.reconnects(after: .success(()), head: ok))
        #expect(Self.policy.reconnects(after: .failure(HotPotatoError(.truncatedBody, reason: "cut")), head: ok))
        #expect(!Self.policy.reconnects(after: .failure(HotPotatoError(.unacceptableStatus, reason: "503")), head: head(503)))
        #expect(!Self.policy.reconnects(after: .failure(HotPotatoError(.unacceptableContentType, reason: "json")), head: ok))
    }

    @Test func stayingUpAndTheTimeBudget() {
        #expect(!Self.policy.stayedUp(forSeconds: 59.9))
        #expect(Self.policy.stayedUp(forSeconds: 60))
        #expect(Self.policy.isWithinTimeBudget(elapsed: 1e9, wait: 30))
        let budget = EventStreamReconnection(maximumElapsedTime: 10)
        #expect(budget.isWithinTimeBudget(elapsed: 4, wait: 6))
        #expect(!budget.isWithinTimeBudget(elapsed: 4.5, wait: 6))
    }

    @Test func theEventStreamGateAcceptsOnly200AndA204() throws {
        let body = Data("data: x\n\n".utf8)
        for status in [201, 210, 299] {
            let error = expectFailure { try drive(EventStreamParser(), head: head(status, contentType: "text/event-stream"), body: body) }
            #expect(error?.code == .unacceptableStatus, "\(status)")
        }
        nonisolated(unsafe) var seen = 0
        let summary = try drive(EventStreamParser { _ in seen += 1 }, head: head(204), body: Data())
        #expect(summary.eventCount == 0 && seen == 0)
        #expect(try drive(EventStreamParser(), head: head(200, contentType: "text/event-stream"), body: body).eventCount == 1)
    }
}
