import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport that performs requests and reports their events to a ``TransferSink``.
protocol TransportEngine: Sendable {
    /// Starts the request, following its redirects as `redirects` says. Returns a closure that
    /// stops the transfer; it must return promptly and may be called from any thread, more than
    /// once.
    ///
    /// What goes out first is ``RedirectPolicy/firstRequest(_:)`` of `request` (with the
    /// session's cookies), once any header the engine adds of its own is on it; every later
    /// request is one ``RedirectPolicy/nextRequest(after:response:redirectsFollowed:replayableBody:)``
    /// returns.
    ///
    /// `body` is the body to stream, when it is not the request's `httpBody`: the engine reads it
    /// through a ``BodyReader`` per request it sends, reports its progress to
    /// ``TransferSink/sent(_:isComplete:)``, sends it again on a redirect that keeps it only when it
    /// ``RequestBody/isReplayable``, and lets go of it once the transfer is over.
    func start(
        _ request: URLRequest, body: RequestBody?, redirects: RedirectPolicy, sink: any TransferSink
    ) -> @Sendable () -> Void

    /// Releases the engine's resources once it is no longer needed. With `cancellingTransfers`,
    /// requests in flight are cancelled; otherwise they run to completion first.
    func invalidate(cancellingTransfers: Bool)

}
