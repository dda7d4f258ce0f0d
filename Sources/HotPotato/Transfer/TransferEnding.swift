/// How an engine's transfer ended, as both engines report it to the ``TransferSink`` after its
/// last event: one type, so that the sink learns an ending one way whichever engine ran.
enum TransferEnding {
    /// The call's outcome is settled already (cancelled, failed or answered by its handler):
    /// nothing is left to report.
    case settled
    /// The body ended normally.
    case finished
    /// The transfer failed.
    case failure(HotPotatoError)
    /// The body ended before its end (`cause` is the engine's account of it); with
    /// `onlyIfShort`, the engine cannot tell, and it did only if fewer bytes than declared
    /// arrived (see ``TransferSink/bodyEndedEarly(_:onlyIfShort:)``).
    case endedEarly(HotPotatoError, onlyIfShort: Bool)

    /// Tells `sink` how the transfer ended.
    func report(to sink: any TransferSink) {
        switch self {
        case .settled: break
        case .finished: sink.end()
        case .failure(let error): sink.fail(error)
        case .endedEarly(let cause, let onlyIfShort): sink.bodyEndedEarly(cause, onlyIfShort: onlyIfShort)
        }
    }
}
