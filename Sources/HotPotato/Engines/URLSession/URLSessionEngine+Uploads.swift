import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Request bodies: a form copied to a temporary file before its first task, URLSession's count of
// bytes sent, and its requests for a new body stream.
extension URLSessionEngine {
    /// Copies `form` into a temporary file off the caller's thread (see ``UploadSpool``), then
    /// starts its transfer with the copy; returns how to stop it, copying or sending.
    func launchSpooling(
        _ form: RequestBody, request: URLRequest, redirects: RedirectPolicy, sink: any TransferSink
    ) -> @Sendable () -> Void {
        let transfer = makeTransfer(request, body: nil, redirects: redirects, sink: sink)
        let stop = Locked<(@Sendable () -> Void)?>(nil)
        DispatchQueue.global(qos: .utility).async { [self] in
            let copy: RequestBody
            do throws(HotPotatoError) {
                copy = try UploadSpool.file(of: form) { sink.isFinished }
            } catch {
                sink.fail(error)
                return
            }
            guard !sink.isFinished else { return }
            transfer.adopt(copy)
            let stopTask = launch(transfer)
            stop.withLock { $0 = stopTask }
        }
        return {
            // Stopping while copying: the copy ends at its next buffer, the sink being settled.
            stop.withLock { $0 }?()
        }
    }
}

extension URLSessionEngine: URLSessionTaskDelegate {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        transfer(for: task)?.didSendBody(totalBytesSent: totalBytesSent)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
        guard let transfer = transfer(for: task) else {
            completionHandler(nil)
            return
        }
        transfer.needNewBodyStream(completionHandler)
    }
}
