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
/// A session sends its requests through one of two engines (see ``Engine``): Foundation's
/// `URLSession`, or libcurl called directly. Either way each response is fed to its handler chunk
/// by chunk as it arrives. A session is safe to use from any thread or task. Sessions are
/// long-lived: make one and share it, or use ``shared``.
public final class Session: Sendable {
    /// A session with the default ``Configuration``.
    public static let shared = Session()

    /// The configuration the session was made with.
    public let configuration: Configuration
    /// The engine the session's requests go through.
    public let engine: Engine
    /// The jar the session keeps its cookies in: a new one for ``CookieStore/inMemory`` (the
    /// default), the configuration's for ``CookieStore/jar(_:)``, and `nil` for
    /// ``CookieStore/none`` and ``CookieStore/httpCookieStorage(_:limits:)``. Read it to see what
    /// servers set; change it to change what the session's next requests send. ``shared`` has one
    /// too, which every user of ``shared`` shares (as `URLSession.shared` shares its storage).
    public let cookieJar: CookieJar?
    let transport: any TransportEngine
    /// What the session's requests store cookies in and send them from, if anything.
    let cookieBackend: (any CookieStoring)?
    /// Set by ``invalidate()``: a call started before it and still between attempts (adapting,
    /// waiting to retry, or not sent yet) ends cancelled, as the calls in flight do.
    private let invalidated = Locked(false)

    /// Creates a session.
    /// - Parameters:
    ///   - configuration: Timeouts, headers, limits; see ``Configuration``.
    ///   - engine: The transport: ``Engine/automatic`` by default (libcurl on Linux when it loads,
    ///     URLSession elsewhere). An engine that cannot run here makes every request fail with
    ///     ``HotPotatoError/Code/engineUnavailable`` and the reason.
    public init(configuration: Configuration = Configuration(), engine: Engine = .automatic) {
        self.configuration = configuration
        self.engine = engine
        cookieJar = configuration.cookieStore.makeJar()
        cookieBackend = configuration.cookieStore.backend(jar: cookieJar)
        switch engine {
        case .urlSession:
            transport = URLSessionEngine(configuration: configuration)
        case .curl:
            if let reason = CurlLibrary.unavailabilityReason {
                transport = UnavailableEngine(engine: .curl, reason: reason)
            } else {
                transport = CurlEngine(configuration: configuration)
            }
        }
    }

    /// Whether ``invalidate()`` was called.
    var isInvalidated: Bool { invalidated.withLock { $0 } }

    /// A session that goes away lets its requests in flight finish, then releases its resources.
    deinit {
        transport.invalidate(cancellingTransfers: false)
    }

    /// Cancels the requests in flight — those between attempts or waiting to retry too — and
    /// releases the session's resources. Requests started afterwards fail with
    /// ``HotPotatoError/Code/invalidRequest``.
    public func invalidate() {
        invalidated.withLock { $0 = true }
        transport.invalidate(cancellingTransfers: true)
    }
}
