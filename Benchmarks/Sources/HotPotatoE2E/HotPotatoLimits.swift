import Foundation
import HotPotato
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// ┌──────────────────────────────────────────────────────────────────────────────────────────┐
// │ THE ONE PLACE where the scale scenarios set HotPotato's connection limits (public API only). │
// │ Change it here when the engine's configuration changes (issue 29).                         │
// └──────────────────────────────────────────────────────────────────────────────────────────┘

/// How the scale scenarios ask HotPotato for "`perHost` connections to each host", on both
/// engines; `nil` leaves every default alone (the scenarios "at each client's defaults").
enum HotPotatoLimits {
    /// What the harness's tables say the setting was.
    static let settingName = "maximumConcurrentTransfers (a cap on all transfers, not per host)"

    static func apply(perHost: Int?, to configuration: inout Session.Configuration) {
        guard let perHost else { return }
        // Before issue 29, the only limit HotPotato offers is global: the curl engine runs at
        // most `maximumConcurrentTransfers` transfers at once, each on a thread of its own,
        // whatever their hosts. Set to the per-host figure, it lets one host's N streams open,
        // and no more: a request to another host then waits behind them (head-of-line).
        //
        // After issue 29 (the engine's branch calls it `maximumConnectionsPerHost`, default 8,
        // handed to URLSession as `httpMaximumConnectionsPerHost` too), this becomes:
        //
        //     configuration.maximumConnectionsPerHost = perHost
        //
        // and the URLSession lines below can go.
        configuration.maximumConcurrentTransfers = perHost
        // The URLSession engine: URLSession's own per-host limit (6 by default on Linux).
        let urlSessionConfiguration = URLSessionConfiguration.ephemeral
        urlSessionConfiguration.httpMaximumConnectionsPerHost = perHost
        configuration.urlSessionConfiguration = urlSessionConfiguration
    }
}
