/// A libcurl failure, as the ``HotPotatoError/underlying`` error of a call made with the curl
/// engine: libcurl's result code and its message.
public struct CurlError: Error, Sendable, Hashable, CustomStringConvertible {
    /// libcurl's `CURLcode`, such as 7 (`CURLE_COULDNT_CONNECT`).
    public let code: Int
    /// libcurl's description of the failure, as specific as it was given.
    public let message: String

    /// Creates a curl error.
    public init(code: Int, message: String) {
        self.code = code
        self.message = message
    }

    /// `curl error <code>: <message>`.
    public var description: String { "curl error \(code): \(message)" }
}
