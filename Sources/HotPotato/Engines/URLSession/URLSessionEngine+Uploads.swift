import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Request bodies: URLSession's count of bytes sent, and its requests for a new body stream.
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
