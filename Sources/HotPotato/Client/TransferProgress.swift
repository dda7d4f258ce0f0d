/// How far a response body has arrived.
///
/// Reported through `onProgress` and ``Call/progress``, at most every
/// ``Session/Configuration/progressInterval`` and once more when the body is complete.
public struct TransferProgress: Sendable, Hashable {
    /// Body bytes received so far (after any content decoding).
    public var bytesReceived: Int64
    /// The body length the server declared, or `nil` when it is unknown: no `Content-Length`, or
    /// a compressed body (whose declared length is not the length received).
    public var expectedBytes: Int64?

    /// Creates a progress value.
    public init(bytesReceived: Int64, expectedBytes: Int64?) {
        self.bytesReceived = bytesReceived
        self.expectedBytes = expectedBytes
    }

    /// The fraction received, from 0 to 1, or `nil` when the length is unknown.
    public var fractionCompleted: Double? {
        Self.fraction(bytesReceived, of: expectedBytes)
    }

    /// `done` as a fraction of `expected`, from 0 to 1 (1 for an empty body); `nil` when the
    /// length is unknown.
    static func fraction(_ done: Int64, of expected: Int64?) -> Double? {
        guard let expected else { return nil }
        guard expected > 0 else { return 1 }
        return min(1, Double(done) / Double(expected))
    }
}
