import CCurl
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The libcurl engine: every transfer of the session on one I/O thread (``CurlEventLoop``, a
/// libcurl multi handle waiting on all their sockets at once), each transfer's handler fed on a
/// ``DeliveryPool`` thread only while it has something to take.
///
/// A transfer therefore holds a thread only while its handler runs: ten thousand open event
/// streams cost the I/O thread, a few delivery threads, and the memory of each transfer. A
/// handler that takes its time (or holds its deliveries) pauses its own transfer, never the I/O
/// thread or another transfer. Requests wait only for a connection to their own host
/// (``Session/Configuration/maximumConnectionsPerHost``); HTTP/2 requests to one origin share its
/// connections.
final class CurlEngine: TransportEngine, @unchecked Sendable {
    private let configuration: Session.Configuration
    private let loop: CurlEventLoop
    private let invalidated = Locked(false)

    init(configuration: Session.Configuration) {
        self.configuration = configuration
        loop = CurlEventLoop(configuration: configuration)
    }

    func start(
        _ request: URLRequest, body: RequestBody?, redirects: RedirectPolicy, sink: any TransferSink
    ) -> @Sendable () -> Void {
        let request = redirects.firstRequest(request)
        guard !invalidated.withLock({ $0 }) else {
            sink.fail(HotPotatoError(.invalidRequest, reason: "The session was invalidated; make a new Session."))
            return {}
        }
        let transfer = CurlTransfer(
            request: request, body: body, sink: sink, configuration: configuration, redirects: redirects, loop: loop)
        sink.allowHoldingDeliveries(transfer.handoff)
        loop.add(transfer)
        // A call settled early (a cancel, a rejection) stops its transfer at once, even one that
        // is paused or idle with no callback to come.
        return { [loop] in loop.stop(transfer) }
    }


    func invalidate(cancellingTransfers: Bool) {
        invalidated.withLock { $0 = true }
        loop.invalidate(cancellingTransfers: cancellingTransfers)
    }
}
