import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The URLSession engine: one `URLSession` whose data delegate feeds each task's
/// ``TransferSink`` on a serial queue (a concurrent delegate queue would reorder chunks).
///
/// On Linux, URLSession delivers every chunk as soon as libcurl has it, with no backpressure
/// (`suspend()` does not pause a transfer in flight, and the response disposition is ignored).
/// Each task's ``URLSessionTransfer`` therefore bounds memory itself by spilling to disk, and
/// stopping a task never waits for URLSession.
final class URLSessionEngine: NSObject, TransportEngine, @unchecked Sendable {
    private let configuration: Session.Configuration
    private let delegateQueue: OperationQueue
    /// Set once in `init`, never changed.
    private var session: URLSession!
    private let transfers = Locked([Int: URLSessionTransfer]())
    private let invalidated = Locked(false)

    init(configuration: Session.Configuration) {
        self.configuration = configuration
        delegateQueue = OperationQueue()
        delegateQueue.maxConcurrentOperationCount = 1
        delegateQueue.name = "HotPotato.URLSession.delegate"
        super.init()
        let urlConfiguration = (configuration.urlSessionConfiguration.copy() as? URLSessionConfiguration) ?? .ephemeral
        urlConfiguration.timeoutIntervalForRequest = configuration.requestTimeout
        urlConfiguration.timeoutIntervalForResource = configuration.resourceTimeout
        #if canImport(FoundationNetworking)
        // No URLCache on Linux. With one, a task looks itself up in the cache on a background
        // queue before it starts, and a `cancel()` that lands meanwhile can reach URLSession
        // after the task has completed and left its registry: a fatal error in
        // FoundationNetworking ("Trying to access a behaviour for a task that in not in the
        // registry"). Its cache would also keep a cacheable body in memory as it arrives.
        urlConfiguration.urlCache = nil
        #endif
        session = URLSession(configuration: urlConfiguration, delegate: self, delegateQueue: delegateQueue)
    }

    func start(_ request: URLRequest, bodyFile: URL?, sink: any TransferSink) -> @Sendable () -> Void {
        // URLSession traps when a task is made on an invalidated session; fail the call instead.
        if invalidated.withLock({ $0 }) {
            sink.fail(HotPotatoError(.invalidRequest, reason: "The session was invalidated; make a new Session."))
            return {}
        }
        let task: URLSessionTask
        if let bodyFile {
            task = session.uploadTask(with: request, fromFile: bodyFile)
        } else {
            task = session.dataTask(with: request)
        }
        let identifier = task.taskIdentifier
        let transfer = URLSessionTransfer(
            task: task, method: request.httpMethod ?? "GET", sink: sink,
            highWaterMark: configuration.memoryHighWaterMark,
            backlog: { [delegateQueue] in URLSessionEngine.queuedOperations(delegateQueue) },
            release: { [weak self] in self?.transfers.withLock { _ = $0.removeValue(forKey: identifier) } })
        transfers.withLock { $0[task.taskIdentifier] = transfer }
        task.resume()
        return { transfer.stop() }
    }

    func invalidate(cancellingTransfers: Bool) {
        let first = invalidated.withLock { flag -> Bool in
            defer { flag = true }
            return !flag
        }
        guard first else { return }
        if cancellingTransfers {
            // Some transfers may be past URLSession already, still feeding a slow handler.
            for transfer in transfers.withLock({ Array($0.values) }) { transfer.cancel() }
            session.invalidateAndCancel()
        } else {
            session.finishTasksAndInvalidate()
        }
    }

    fileprivate func transfer(for task: URLSessionTask) -> URLSessionTransfer? {
        transfers.withLock { $0[task.taskIdentifier] }
    }

    /// The operations waiting on the delegate queue: on Linux, mostly chunks URLSession has
    /// received and not yet handed over. Counting is linear in the backlog, so callers sample it.
    private static func queuedOperations(_ queue: OperationQueue) -> Int {
        #if canImport(FoundationNetworking)
        return queue.operationCount
        #else
        return 0
        #endif
    }
}

extension URLSessionEngine: URLSessionDataDelegate {
    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        transfer(for: dataTask)?.didReceive(response)
        // Always allow: on Apple platforms `.cancel` would also cut off the bounded error body that a
        // rejection keeps; the transfer stops the task itself once it has what it needs.
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        transfer(for: dataTask)?.didReceive(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        transfer(for: task)?.didComplete(error)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        guard let transfer = transfer(for: task) else {
            completionHandler(nil)
            return
        }
        transfer.handleRedirect(to: request, limit: configuration.maximumRedirects, completionHandler: completionHandler)
    }
}
