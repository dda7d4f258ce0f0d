import Foundation

/// The monitors of one call, with its number, method and URL: what the attempt loop tells them.
struct EventMonitors: Sendable {
    /// The queue of monitors that do not pick one.
    static let defaultQueue = DispatchQueue(label: "HotPotato.EventMonitor")
    private static let counter = Locked(0)

    private let monitors: [any EventMonitor]
    let requestID: Int
    private let method: HTTPMethod
    private let url: URL?

    /// `nil` when there are no monitors: nothing to tell.
    init?(_ monitors: [any EventMonitor], method: HTTPMethod, url: URL?) {
        guard !monitors.isEmpty else { return nil }
        self.monitors = monitors
        self.method = method
        self.url = url
        requestID = Self.counter.withLock { count in
            count += 1
            return count
        }
    }

    /// Delivers `kind` to every monitor, on its queue.
    func send(_ kind: RequestEvent.Kind) {
        let event = RequestEvent(requestID: requestID, method: method, url: url, date: Date(), kind: kind)
        for monitor in monitors {
            monitor.queue.async { monitor.receive(event) }
        }
    }

    /// A progress callback that reports ``RequestEvent/Kind/progress(_:)``.
    var progressObserver: ProgressReporter.Observer<TransferProgress> {
        ProgressReporter.Observer(queue: nil) { progress in send(.progress(progress)) }
    }
}
