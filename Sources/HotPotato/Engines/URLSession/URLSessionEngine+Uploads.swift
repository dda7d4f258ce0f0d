import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Request bodies: a form copied to a temporary file before its first task, URLSession's count of
// bytes sent, and its requests for a new body stream.
extension URLSessionEngine {
    /// Copies `form` into a temporary file on a thread of its own (see ``UploadSpool``), then
    /// launches `transfer` with the copy. A call stopped meanwhile ends the copy at its next
    /// buffer (its sink is settled); a task made afterwards is cancelled as it starts.
    func launchSpooling(_ form: RequestBody, for transfer: URLSessionTransfer) {
        let sink = transfer.sink
        let thread = Thread { [self] in
            let copy: RequestBody
            do throws(HotPotatoError) {
                copy = try UploadSpool.file(of: form) { sink.isFinished }
            } catch {
                sink.fail(error)
                abandonLaunch(transfer)
                return
            }
            guard !sink.isFinished else {
                abandonLaunch(transfer)
                return
            }
            transfer.adopt(copy)
            launch(transfer)
        }
        thread.name = "HotPotato.URLSession.spool"
        thread.start()
    }
}

extension URLSessionEngine: URLSessionTaskDelegate {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        if totalBytesSent == bytesSent {
            // The first bytes of the body went: the connection exists (see URLSessionDescriptors).
            URLSessionDescriptors.markConnections(of: task, proxyPort: proxyRule.proxyPort(for: task.currentRequest?.url))
        }
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
