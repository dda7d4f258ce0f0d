/// The opening words of a transport failure's reason, the same whichever engine met it (each
/// engine's mapping adds its own detail after a colon): one home for both mappings.
enum TransportFailureText {
    static let refused = "The server refused the connection"
    static let hostNotFound = "The host name could not be resolved"
    static let timedOut = "The request timed out"
    static let lost = "The connection was lost"
    static let handshake = "The TLS handshake failed"
    static let badURL = "The URL cannot be requested"
    static let malformed = "The server's response breaks HTTP"
    static let failed = "The transfer failed"
}
