import Foundation

/// What a client under test does for the scale scenarios, each in its own process: hold event
/// streams open and make small GETs, its own way (HotPotato's engines, AsyncHTTPClient,
/// URLSession). The scenario logic, time limits and report lines are ``ScaleDriver``'s, the same
/// for every client.
public protocol ScaleClient: Sendable {
    /// Opens the event stream at `url` and calls `onEvent` once for every event, for as long as
    /// the stream lasts (the server never ends it); throws the error that ended it.
    func stream(_ url: URL, onEvent: @escaping @Sendable () -> Void) async throws

    /// GETs `url` and collects its body; the body's size. Throws when the request fails or the
    /// status is not 200.
    func get(_ url: URL) async throws -> Int
}

/// A failure a client reports (a status other than 200, a missing body).
public struct ScaleClientError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
