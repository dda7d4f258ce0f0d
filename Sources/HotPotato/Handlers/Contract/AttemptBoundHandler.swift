/// A handler whose work a new attempt of its call could not start over: an element stream that
/// has parsed body bytes, whose consumer may hold elements already. The attempt loop retries a
/// failed attempt only while its handler allows it (see ``RetryPolicy``).
protocol AttemptBoundHandler: AnyObject {
    /// Whether a failed attempt may be followed by another, with a new handler of the same call.
    var allowsAnotherAttempt: Bool { get }
}
