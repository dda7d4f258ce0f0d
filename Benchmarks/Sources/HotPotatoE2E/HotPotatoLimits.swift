import Foundation
import HotPotato
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The one place where the scale scenarios set HotPotato's connection limits (public API only).

/// How the scale scenarios ask HotPotato for "`perHost` connections to each host", on both
/// engines; `nil` leaves every default alone (the scenarios "at each client's defaults").
enum HotPotatoLimits {
    /// What the harness's tables say the setting was.
    static let settingName = "maximumConnectionsPerHost"

    static func apply(perHost: Int?, to configuration: inout Session.Configuration) {
        guard let perHost else { return }
        // HTTP/1.1 connections per host on the curl engine (requests beyond it wait for that
        // host only; HTTP/2 streams are multiplexed up to the server's limit), and
        // `httpMaximumConnectionsPerHost` on the URLSession engine.
        configuration.maximumConnectionsPerHost = perHost
    }
}
