extension Session {
    /// The transport a ``Session`` sends its requests through. Both feed the same handlers, with
    /// the same API, errors and guarantees.
    ///
    /// - ``urlSession``: Foundation's `URLSession`, on every platform; the only engine on iOS,
    ///   tvOS, watchOS and visionOS. On Linux its body chunks cost a thread hop each and it cannot
    ///   pause a transfer, so memory under a slow handler is bounded by spilling to disk.
    /// - ``curl``: libcurl called directly (Linux and macOS), loaded at run time. Each chunk goes
    ///   to the handler synchronously from libcurl's write callback: no thread hop, and a slow
    ///   handler slows the transfer itself, through TCP flow control, so memory stays bounded by
    ///   construction.
    ///
    /// ``automatic`` (the default) picks ``curl`` on Linux when libcurl loads, and ``urlSession``
    /// everywhere else; see BENCHMARKS.md for the measurements behind it.
    public enum Engine: Sendable, Hashable, CustomStringConvertible {
        /// Foundation's `URLSession`.
        case urlSession
        /// libcurl, called directly.
        case curl

        /// The platform's default: ``curl`` on Linux when libcurl can be loaded, ``urlSession``
        /// otherwise (including macOS, where URLSession is the system's own stack).
        public static var automatic: Engine {
            #if os(Linux)
            return CurlLibrary.isAvailable ? .curl : .urlSession
            #else
            return .urlSession
            #endif
        }

        /// Whether the engine can run here.
        public var isAvailable: Bool { unavailabilityReason == nil }

        /// Why the engine cannot run here, or `nil` when it can. For ``curl``: libcurl is missing
        /// or incomplete, or the platform has none.
        public var unavailabilityReason: String? {
            switch self {
            case .urlSession: return nil
            case .curl: return CurlLibrary.unavailabilityReason
            }
        }

        /// `"URLSession"` or `"curl"`.
        public var description: String {
            switch self {
            case .urlSession: return "URLSession"
            case .curl: return "curl"
            }
        }
    }
}
