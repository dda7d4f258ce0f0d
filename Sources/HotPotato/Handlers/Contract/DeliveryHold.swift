/// How a handler holds back its transfer without blocking a thread: after ``hold()``, no further
/// event is delivered to it until ``release()``, and the engine pauses the transfer once enough of
/// its body has piled up (libcurl stops reading the socket: TCP, or the HTTP/2 window, holds the
/// rest on the server). Both may be called from any thread, at any time, any number of times;
/// the latest call wins.
protocol DeliveryHold: AnyObject, Sendable {
    /// Delivers nothing more to the handler until ``release()``; the event being delivered, if
    /// any, completes.
    func hold()
    /// Delivers again what waits, and what comes.
    func release()
}
