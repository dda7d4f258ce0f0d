import Foundation
import HotPotato
import ScaleKit

/// HotPotato, either engine, as the scale scenarios use it: `streamEvents()` consuming every
/// event, and `asData()` for the GETs; one `Session` for the whole job.
struct HotPotatoScaleClient: ScaleClient {
    let session: Session

    /// A session on `engine` with `perHost` connections per host (see ``HotPotatoLimits``), or
    /// the defaults when it is `nil`; HTTPS trusts the harness's certificate authority.
    init(engine: Session.Engine, perHost: Int?) {
        var configuration = Session.Configuration()
        HotPotatoLimits.apply(perHost: perHost, to: &configuration)
        if let authority = ProcessInfo.processInfo.environment["HOTPOTATO_E2E_CA"] {
            configuration.certificateAuthorities = URL(fileURLWithPath: authority)
        }
        session = Session(configuration: configuration, engine: engine)
    }

    func stream(_ url: URL, onEvent: @escaping @Sendable () -> Void) async throws {
        for try await _ in session.get(url).streamEvents() { onEvent() }
    }

    func get(_ url: URL) async throws -> Int {
        try await session.get(url).asData().content.count
    }
}
