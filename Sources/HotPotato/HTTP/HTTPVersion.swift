/// The version of HTTP a response came in: ``http1_0``, ``http1_1``, ``http2`` or ``http3``.
///
/// Read it from ``ResponseHead/httpVersion`` (or ``Response/httpVersion``). The curl engine
/// always knows it; the URLSession engine cannot tell, and leaves it `nil` (see
/// ``HTTPVersionPolicy``).
///
/// ```swift
/// let response = try await session.get(url).asData().response()
/// if response.httpVersion == .http2 { print("multiplexed") }
/// ```
public struct HTTPVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The major version: 1, 2 or 3.
    public let major: Int
    /// The minor version: 0 or 1 for HTTP/1, 0 otherwise.
    public let minor: Int

    /// Creates a version from its numbers.
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// HTTP/1.0.
    public static let http1_0 = HTTPVersion(major: 1, minor: 0)
    /// HTTP/1.1.
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)
    /// HTTP/2.
    public static let http2 = HTTPVersion(major: 2, minor: 0)
    /// HTTP/3.
    public static let http3 = HTTPVersion(major: 3, minor: 0)

    /// As a status line writes it: `HTTP/1.1`, `HTTP/2`, `HTTP/3` (a version from 2 on has no
    /// minor number, unless it is not 0).
    public var description: String {
        major >= 2 && minor == 0 ? "HTTP/\(major)" : "HTTP/\(major).\(minor)"
    }

    /// Orders versions by major, then minor number.
    public static func < (lhs: HTTPVersion, rhs: HTTPVersion) -> Bool {
        (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
    }
}
