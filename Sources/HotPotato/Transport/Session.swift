import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Makes HTTP requests whose bodies stream into ``ContentHandler``s.
///
/// Start a request with a method (``get(_:)-(URL)``, ``post(_:)-(URL)`` …), choose what to do with the
/// body in the chain, and run it:
///
/// ```swift
/// let user = try await Session.shared.get(url).as(User.self, atKeyPath: "data").content
/// let file = try await session.get(bigURL)
///     .downloadToFile(at: destination)
///     .onProgress { print($0.fractionCompleted ?? 0) }
///     .response()
/// ```
///
/// A session owns one `URLSession` whose delegate feeds each task's handler chunk by chunk on a
/// serial queue. It is safe to use from any thread or task. Sessions are long-lived: make one
/// and share it, or use ``shared``.
public final class Session: Sendable {
    /// A session with the default ``Configuration``.
    public static let shared = Session()

    /// The configuration the session was made with.
    public let configuration: Configuration
    let engine: any Engine

    /// Creates a session.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.engine = URLSessionEngine(configuration: configuration)
    }

    /// A session that goes away lets its requests in flight finish, then releases its resources.
    deinit {
        engine.invalidate(cancellingTransfers: false)
    }

    /// Cancels the requests in flight and releases the session's `URLSession`. Requests started
    /// afterwards fail.
    public func invalidate() {
        engine.invalidate(cancellingTransfers: true)
    }
}
