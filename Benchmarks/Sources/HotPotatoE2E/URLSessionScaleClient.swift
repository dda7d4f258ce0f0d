import Foundation
import ScaleKit
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// URLSession without HotPotato, as its users hold event streams: one session with a data
/// delegate on a serial queue, each stream's events counted by their blank line (it has no
/// event-stream parser); GETs with `dataTask(with:completionHandler:)` on the same session, so
/// that they share its connection limits.
final class URLSessionScaleClient: NSObject, ScaleClient, URLSessionDataDelegate, @unchecked Sendable {
    private struct Stream {
        var counter = EventCounter()
        let onEvent: @Sendable () -> Void
        let continuation: CheckedContinuation<Void, any Error>
    }

    private var session: URLSession!
    /// The streams by task identifier; touched on the delegate queue (serial) and under `lock`.
    private var streams: [Int: Stream] = [:]
    private let lock = NSLock()

    /// `perHost` sets `httpMaximumConnectionsPerHost` (6 by default on Linux); `nil` keeps
    /// `URLSessionConfiguration.default` as it is.
    init(perHost: Int?) {
        super.init()
        let configuration = URLSessionConfiguration.default
        if let perHost { configuration.httpMaximumConnectionsPerHost = perHost }
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
    }

    func stream(_ url: URL, onEvent: @escaping @Sendable () -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let task = session.dataTask(with: url)
            lock.lock()
            streams[task.taskIdentifier] = Stream(onEvent: onEvent, continuation: continuation)
            lock.unlock()
            task.resume()
        }
    }

    func get(_ url: URL) async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: url) { data, response, error in
                if let error { return continuation.resume(throwing: error) }
                guard let status = (response as? HTTPURLResponse)?.statusCode, status == 200, let data else {
                    return continuation.resume(throwing: ScaleClientError("no 200 answer"))
                }
                continuation.resume(returning: data.count)
            }.resume()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.lock()
        let events = streams[dataTask.taskIdentifier]?.counter.feed(data) ?? 0
        let onEvent = streams[dataTask.taskIdentifier]?.onEvent
        lock.unlock()
        for _ in 0..<events { onEvent?() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        lock.lock()
        let stream = streams.removeValue(forKey: task.taskIdentifier)
        lock.unlock()
        if let error { stream?.continuation.resume(throwing: error) } else { stream?.continuation.resume() }
    }
}
