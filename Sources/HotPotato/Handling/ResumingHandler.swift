import Foundation

/// A handler that can continue a body across the attempts of one call (a retried download),
/// rather than start over: the attempt loop (`AttemptLoop`) asks it to keep what it has between
/// attempts, and progress counts from where each response starts.
protocol ResumingHandler: AnyObject {
    /// The body offset at which the current response continues what the handler already holds.
    var resumedFrom: Int64 { get }
    /// Keeps the partial body between the attempts of a call, if the handler would not anyway.
    /// Returns what to run when the call ends without the body (failed or cancelled), to leave
    /// nothing behind; `nil` when the handler keeps its partial body on purpose. Called before
    /// ``RequestAdapting/adapt(_:)``.
    func keepPartialAcrossAttempts() -> (@Sendable () -> Void)?
}
