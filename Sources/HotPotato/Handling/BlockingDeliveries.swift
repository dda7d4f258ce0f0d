/// A handler that may block the thread delivering its chunks to hold the transfer back, when the
/// engine allows it (see `TransportEngine.deliveriesMayBlock`); until told so, it must not.
protocol BlockingDeliveries: AnyObject {
    /// The engine delivers this handler's chunks on a thread of its own, which it may block.
    /// Called at most once, before the first chunk.
    func allowBlockingDeliveries()
}
