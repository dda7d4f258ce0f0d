import CCurl
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Makes close-on-exec the descriptors FoundationNetworking opens for the URLSession engine, which
/// it opens without the flag and no option reaches: on Linux, URLSession is libcurl inside
/// FoundationNetworking, whose multi handle has a wake-up socket pair and whose connections are
/// plain sockets, so a process the application spawns would inherit them and keep a connection
/// open after HotPotato closed it.
///
/// - The wake-up pair is opened when the `URLSession` is made: the wake-up sockets that appear
///   meanwhile (unnamed, connected, non-blocking `AF_UNIX` stream sockets, as libcurl makes them)
///   are marked, and nothing else another thread opened then (``makeSession(_:)``). Foundation's
///   `Process.run()` leaves one end of a socket pair inheritable on purpose, to learn of the
///   child's exit when it closes: marking it made every later `waitUntilExit()` hang.
/// - A connection is marked once it is known to exist: when its task's response head arrives or
///   its request body starts to go (``markConnections(of:proxyPort:)``), by its peer's port. A
///   child spawned between the connect and that moment can still inherit it: the engine's one
///   remaining window, which the curl engine does not have (it opens every socket close-on-exec).
///
/// Elsewhere (Apple's URLSession runs its connections outside the process) both are no-ops.
enum URLSessionDescriptors {
    /// Runs `make` (which makes a `URLSession`), then marks the wake-up sockets it opened.
    static func makeSession(_ make: () -> URLSession) -> URLSession {
        #if canImport(FoundationNetworking)
        let snapshot = hp_descriptors_snapshot()
        let session = make()
        hp_descriptors_mark_opened_since(snapshot)
        return session
        #else
        return make()
        #endif
    }

    /// Marks close-on-exec the process's inheritable TCP connections to the port `task`'s current
    /// request goes to (its URL's, or 80/443), and to `proxyPort`.
    static func markConnections(of task: URLSessionTask, proxyPort: Int?) {
        #if canImport(FoundationNetworking)
        guard let url = task.currentRequest?.url ?? task.originalRequest?.url else { return }
        let scheme = url.scheme?.lowercased()
        guard scheme == "http" || scheme == "https" else { return }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        hp_close_on_exec_connections(Int32(port))
        if let proxyPort, proxyPort != port { hp_close_on_exec_connections(Int32(proxyPort)) }
        #endif
    }
}
