import Foundation

/// A handler that can continue a body across the attempts of one call (a retried download),
/// rather than start over: the attempt loop (`AttemptLoop`) gives each attempt's handler the
/// same ``AttemptCarry``, and progress counts from where each response starts.
protocol ResumingHandler: AnyObject {
    /// The body offset at which the current response continues what the handler already holds.
    var resumedFrom: Int64 { get }
    /// Keeps the partial body in `carry` between the attempts of a call, if the handler does not
    /// keep it anyway (a resumable download has a partial file of its own). Called before
    /// ``RequestAdapting/adapt(_:)``.
    func keepPartialAcrossAttempts(in carry: AttemptCarry)
}
