/// A libcurl failure, as the ``HotPotatoError/underlying`` error of a call made with the curl
/// engine: libcurl's result code and its message.
public struct CurlError: Error, Sendable, Hashable, CustomStringConvertible {
    /// libcurl's `CURLcode`, such as 7 (`CURLE_COULDNT_CONNECT`).
    public let code: Int
    /// libcurl's description of the failure, as specific as it was given, with the credentials
    /// of any URL in it redacted (see ``Redaction``).
    public let message: String

    /// Creates a curl error; URL credentials in `message` are redacted.
    public init(code: Int, message: String) {
        self.code = code
        self.message = Redaction.redactingCredentials(in: message)
    }

    /// `curl error <code>: <message>`.
    public var description: String { "curl error \(code): \(message)" }
}
