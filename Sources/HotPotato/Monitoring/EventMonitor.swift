import Foundation

/// Sees every request of a session as it happens: built, each attempt sent, each redirect, the
/// response head, progress, each retry scheduled, and the end with its timings or error.
///
/// Attach monitors with ``Session/Configuration/eventMonitors``. Each monitor's events arrive in
/// order, on its ``queue``, never on a transfer's own thread, so a slow monitor slows no request.
/// ``EventLogger`` is a ready one that prints a line per event.
///
/// ```swift
/// struct Metrics: EventMonitor {
///     func receive(_ event: RequestEvent) {
///         if case .finished(let summary) = event.kind { record(summary.duration, summary.status) }
///     }
/// }
/// ```
public protocol EventMonitor: Sendable {
    /// The queue events are delivered on. Default: a serial queue of HotPotato's, shared by the
    /// monitors that keep the default.
    var queue: DispatchQueue { get }

    /// Called with each event, on ``queue``.
    func receive(_ event: RequestEvent)
}

extension EventMonitor {
    /// A serial queue shared by the monitors that do not pick one.
    public var queue: DispatchQueue { EventMonitors.defaultQueue }
}
