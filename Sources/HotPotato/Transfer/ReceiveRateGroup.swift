/// A call's own receive-rate limit (``Request/limitRate(_:)``), shared by every transfer that
/// carries the same group: the first request of a download and the other connections it starts
/// (``FileWriter``'s `connections:` and mirrors), so that the whole download, not each of its
/// connections, keeps to the rate.
///
/// The libcurl engine's loop divides ``limit`` evenly among the group's transfers in flight,
/// when one joins and four times a second after that (a connection that ends gives its share
/// back within a quarter of a second). A group's transfers run on the engine's main loop, never
/// in a download lane, so that one loop sees all of them.
final class ReceiveRateGroup: Sendable {
    /// The most bytes a second the group's transfers receive together (above 0).
    let limit: Int64
    /// How many transfers the group may run at once (a download's `connections`): what each
    /// transfer's receive buffer is sized for (see ``expectedShare``).
    let expectedTransfers: Int

    init(limit: Int64, expectedTransfers: Int = 1) {
        self.limit = limit
        self.expectedTransfers = max(1, expectedTransfers)
    }

    /// The share of ``limit`` a transfer receives when all ``expectedTransfers`` run. libcurl
    /// sizes a transfer's reads once, as it starts, and reads a socket that stays readable many
    /// times before it looks at the rate again; it also forgets how far ahead a transfer was
    /// every three seconds. Reads sized to the whole limit let each of eight connections run a
    /// burst ahead that way: 4.3 MiB/s were measured at a limit of 4.
    var expectedShare: Int64 {
        share(among: expectedTransfers)
    }

    /// The share of ``limit`` each of `transfers` transfers in flight receives (at least 1).
    func share(among transfers: Int) -> Int64 {
        max(1, limit / Int64(max(1, transfers)))
    }
}
