/// How far a request body has been sent.
///
/// Reported through ``Request/onUploadProgress(queue:_:)`` and ``Call/uploadProgress``, at most
/// every ``Session/Configuration/progressInterval`` and once more when the whole body is sent. A
/// body sent again — after a `307` or `308` redirect, or on a retry — starts again from 0.
public struct UploadProgress: Sendable, Hashable {
    /// Body bytes sent so far (without the framing of a chunked body).
    public var bytesSent: Int64
    /// The body's length, or `nil` when it is not known before it is sent (a stream without a
    /// length, sent chunked).
    public var expectedBytes: Int64?

    /// Creates a progress value.
    public init(bytesSent: Int64, expectedBytes: Int64?) {
        self.bytesSent = bytesSent
        self.expectedBytes = expectedBytes
    }

    /// The fraction sent, from 0 to 1, or `nil` when the length is unknown.
    public var fractionCompleted: Double? {
        TransferProgress.fraction(bytesSent, of: expectedBytes)
    }
}
