import Foundation

/// How a segmented download starts the requests of its other connections, and reaches the one it
/// began with: made by the request that runs the ``FileWriter`` (``Request``'s transfer set-up),
/// which alone knows the session, the request and its options.
final class SegmentLauncher: @unchecked Sendable {
    /// Starts a `GET` like the download's own (its URL, headers, credentials, cookies and
    /// interceptors, without its progress callbacks, gate options or retries) with `headers`
    /// added, its body going to `handler` — to `mirror` instead of the request's URL when given
    /// (without the request's credentials and interceptors when the mirror is another origin);
    /// `ended` is called once, with the failure or `nil`, and what the engine measured. Returns
    /// how to cancel it.
    typealias Start = @Sendable (
        _ headers: [(name: String, value: String)], _ handler: SegmentHandler, _ mirror: URL?,
        _ ended: @escaping @Sendable (HotPotatoError?, TransferTimings?) -> Void
    ) -> @Sendable () -> Void

    let start: Start
    /// Where the download's progress goes: it counts the whole file, every connection's bytes.
    let progress: ProgressReporter
    /// Cancels the download's own transfer (the first connection). Set once, before it starts.
    var cancelPrimary: @Sendable () -> Void = {}
    /// Starts the whole request over (the resource changed during the download), handing its
    /// outcome — a `Result<Response<URL>, HotPotatoError>` — to the function given, and returns
    /// how to cancel it; `nil` once it was started over twice.
    var restart: (@Sendable (_ deliver: @escaping @Sendable (any Sendable) -> Void) -> @Sendable () -> Void)?

    init(progress: ProgressReporter, start: @escaping Start) {
        self.progress = progress
        self.start = start
    }
}
