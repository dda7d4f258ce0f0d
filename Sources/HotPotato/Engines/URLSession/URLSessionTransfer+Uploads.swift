import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The request body: the stream a task reads it from, its progress, and FoundationNetworking's
// requests to rewind it.
extension URLSessionTransfer {
    /// `request`, ready to send `body` (recorded in `state`): a body that is one file goes as it
    /// is (the engine uploads the file); any other — a one-shot stream — as the `httpBodyStream`,
    /// a ``BodyInputStream`` over a new reader, without a `Content-Length` (FoundationNetworking
    /// sends a stream chunked, and would send both). The previous stream's reader is closed.
    func prepare(_ request: URLRequest, body: RequestBody?, in state: inout State) -> URLRequest {
        state.bodyStream?.closeReader()
        state.bodyStream = nil
        guard let body, body.wholeFile == nil else { return request }
        let reader: Result<any BodyReader, HotPotatoError>
        do {
            reader = .success(try body.makeReader())
        } catch {
            reader = .failure(error)
        }
        let sink = sink
        let stream = BodyInputStream(reader: reader, idleTimeout: request.timeoutInterval) { sink.isFinished }
        var request = request
        request.httpBodyStream = stream
        request.setValue(nil, forHTTPHeaderField: "Content-Length")
        state.bodyStream = stream
        return request
    }

    /// Reports the body's progress from URLSession's count of the bytes it has handed to libcurl.
    func didSendBody(totalBytesSent: Int64) {
        let (expected, stream) = state.withLock { state in
            (state.body?.length ?? state.request.httpBody.map { Int64($0.count) }, state.bodyStream)
        }
        let complete = expected.map { totalBytesSent >= $0 }
            ?? stream.map { $0.isAtEnd && totalBytesSent >= $0.bytesRead } ?? false
        sink.sent(UploadProgress(bytesSent: totalBytesSent, expectedBytes: expected), isComplete: complete)
    }

    /// Answers FoundationNetworking, which asks for a new body stream when libcurl must send the
    /// body again (on a new connection, the kept-alive one having closed as the request went out).
    /// The answer is always `nil`, which keeps the current source:
    ///
    /// - a one-shot stream nothing was taken from yet is still at its start; one that was read
    ///   from fails the call with ``HotPotatoError/Code/bodyNotReplayable`` rather than send the
    ///   rest as if it were all (FoundationNetworking would take a new stream from where it is);
    /// - FoundationNetworking rewinds no body of its own (an `httpBody`, a file): it would send
    ///   nothing more while announcing the whole length, and the call would wait out its timeout.
    ///   It fails at once with ``HotPotatoError/Code/connectionLost``, which a retry policy
    ///   retries with a new task, sending the body whole.
    func needNewBodyStream(_ completion: (InputStream?) -> Void) {
        let (stream, sendsBody) = state.withLock { state in
            (state.bodyStream, state.body != nil || state.request.httpBody?.isEmpty == false)
        }
        completion(nil)
        if let stream {
            if !stream.rewind() {
                stream.fail(with: .bodyNotReplayable(
                    "URLSession had to send the request body again (on a new connection, the kept-alive one having closed), "
                        + "but it is a one-shot stream that was already read."))
            }
        } else if sendsBody {
            sink.fail(HotPotatoError(
                .connectionLost,
                reason: "The connection closed as the request was sent, and FoundationNetworking cannot send the request body "
                    + "again on a new one."))
            stop()
        }
    }

    /// Takes the copy of the body made for URLSession (see ``UploadSpool``), before the first task.
    func adopt(_ body: RequestBody) {
        state.withLock { $0.body = body }
    }
}
