import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Stands in for an engine that cannot run here: every request fails with
/// ``HotPotatoError/Code/engineUnavailable`` and the reason.
struct UnavailableEngine: TransportEngine {
    let engine: Session.Engine
    let reason: String

    func start(_ request: URLRequest, body: RequestBody?, redirects: RedirectPolicy, sink: any TransferSink) -> @Sendable () -> Void {
        sink.fail(HotPotatoError(.engineUnavailable, reason: "The \(engine) engine is not available: \(reason)."))
        return {}
    }

    func invalidate(cancellingTransfers: Bool) {}

}
