import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Request bodies: a form copied to a temporary file before its first task, URLSession's count of
// bytes sent, and its requests for a new body stream.
extension URLSessionEngine {
    /// Copies `form` into a temporary file on a thread of its own (see ``UploadSpool``), then
    /// starts its transfer with the copy; returns how to stop it, copying or sending.
    func launchSpooling(
        _ form: RequestBody, request: URLRequest, redirects: RedirectPolicy, sink: any TransferSink
    ) -> @Sendable () -> Void {
        let transfer = makeTransfer(request, body: nil, redirects: redirects, sink: sink)
        let thread = Thread { [self] in
            let copy: RequestBody
            do throws(HotPotatoError) {
                copy = try UploadSpool.file(of: form) { sink.isFinished }
            } catch {
                sink.fail(error)
                return
            }
            guard !sink.isFinished else { return }
            transfer.adopt(copy)
            _ = launch(transfer)
        }
        thread.name = "HotPotato.URLSession.spool"
        thread.start()
        // Stopping while copying: the copy ends at its next buffer, the sink being settled; a
        // task made afterwards is cancelled as it starts.
        return { transfer.stop() }
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
