import Foundation

/// A bearer token and when it expires, as a ``BearerAuthenticator`` holds it.
public struct BearerCredential: Sendable, Equatable {
    /// The token sent as `Authorization: Bearer <token>`.
    public var accessToken: String
    /// When the token stops being valid, if known.
    public var expiresAt: Date?
    /// A token to get the next one with, if the service issues one; HotPotato only hands it to
    /// your refresh closure.
    public var refreshToken: String?

    /// Creates a credential.
    public init(accessToken: String, expiresAt: Date? = nil, refreshToken: String? = nil) {
        self.accessToken = accessToken
        self.expiresAt = expiresAt
        self.refreshToken = refreshToken
    }

    /// Whether the token expires within `margin` seconds of `now` (never, without ``expiresAt``).
    public func expires(within margin: TimeInterval, of now: Date = Date()) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt.timeIntervalSince(now) <= margin
    }
}
