import Foundation
@testable import HotPotato

/// A clock for reconnection tests: a sleep returns at once, moves the clock's time forward by
/// what it was asked, and is recorded — the tests check the waits the stream computed, never how
/// long anything took. `random` is the jitter's draw (0 takes nothing off a wait). With
/// `tick`, every reading of the time also moves it forward that much: each connection then
/// looks as if it stayed up that long.
final class VirtualEventStreamClock: Sendable {
    private let state = Locked((offset: TimeInterval(0), waits: [TimeInterval]()))
    private let random: Double
    private let tick: TimeInterval

    init(random: Double = 0, tick: TimeInterval = 0) {
        self.random = random
        self.tick = tick
    }

    /// The waits the stream asked for, in order.
    var waits: [TimeInterval] { state.withLock { $0.waits } }

    var clock: EventStreamClock {
        EventStreamClock(
            now: { [state, tick] in
                let offset = state.withLock { state in
                    state.offset += tick
                    return state.offset
                }
                return EventStreamClock.system.now() + offset
            },
            sleep: { [state] seconds in
                try Task.checkCancellation()
                state.withLock {
                    $0.offset += seconds
                    $0.waits.append(seconds)
                }
                await Task.yield()
            },
            random: { [random] in random })
    }
}

extension ServerSentEventStream {
    /// The same stream, reconnecting by `clock`.
    func reconnecting(by clock: VirtualEventStreamClock) -> ServerSentEventStream {
        var copy = self
        copy.clock = clock.clock
        return copy
    }
}
