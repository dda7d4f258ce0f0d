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
///
/// **Download lanes.** A bulk download (its handler takes large chunks: a file, a stream,
/// nowhere) goes to a lane when one is free: a ``CurlEventLoop`` of its own whose thread carries
/// that transfer alone and delivers each read on the spot, from libcurl's buffer (see
/// ``Session/Configuration/downloadLanes``). On the shared loop the same download costs a copy
/// and a hand-off to another core per chunk, and its page-cache writes run on the other core
/// from its reads; in a lane it costs what `curl -o` costs, and a slow disk still holds back
/// only that download.
final class CurlEngine: TransportEngine, @unchecked Sendable {
    private let configuration: Session.Configuration
    /// The shared loop: every transfer that is not a lane's.
    let loop: CurlEventLoop
    /// The download lanes, each a loop that carries one transfer at a time; their threads start
    /// with their first transfer.
    private let lanes: [CurlEventLoop]
    private let invalidated = Locked(false)

    init(configuration: Session.Configuration) {
        self.configuration = configuration
        loop = CurlEventLoop(configuration: configuration)
        lanes = (0..<max(0, configuration.downloadLanes)).map { _ in
            CurlEventLoop(configuration: configuration, deliversInline: true)
        }
    }

    func start(
        _ request: URLRequest, body: RequestBody?, redirects: RedirectPolicy, sink: any TransferSink
    ) -> @Sendable () -> Void {
        let request = redirects.firstRequest(request)
        guard !invalidated.withLock({ $0 }) else {
            sink.fail(HotPotatoError(.invalidRequest, reason: "The session was invalidated; make a new Session."))
            return {}
        }
        // A rate limit is shared on the one loop (the session's among all transfers, a call's among
        // its connections): no lanes then.
        let sharesRate = configuration.receiveRateLimit != nil || sink.receiveRateGroup != nil
        let lane = sink.suitsDownloadLane && !sharesRate ? lanes.first { $0.reserve() } : nil
        let loop = lane ?? loop
        let transfer = CurlTransfer(request: request, body: body, sink: sink, redirects: redirects, loop: loop)
        sink.allowHoldingDeliveries(transfer.handoff)
        loop.add(transfer, reserved: lane != nil)
        // A call settled early (a cancel, a rejection) stops its transfer at once, even one that
        // is paused or idle with no callback to come.
        return { [loop] in loop.stop(transfer) }
    }


    func invalidate(cancellingTransfers: Bool) {
        invalidated.withLock { $0 = true }
        loop.invalidate(cancellingTransfers: cancellingTransfers)
        for lane in lanes { lane.invalidate(cancellingTransfers: cancellingTransfers) }
    }
}
