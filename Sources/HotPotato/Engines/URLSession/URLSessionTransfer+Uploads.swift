import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The request body: the stream a task reads it from, its progress, and FoundationNetworking's
// requests to rewind it.
extension URLSessionTransfer {
    /// `request`, ready to send `body` (recorded in `state`): a streamed body — a file, a
    /// multipart form, a one-shot stream — goes as the `httpBodyStream`, a ``BodyInputStream`` over
    /// a new reader, whose reads stop at the body's length; the previous stream's reader is closed.
    ///
    /// A body whose length is known is announced with a `Content-Length` of exactly that length.
    /// FoundationNetworking gives libcurl no length for a stream, and libcurl would send it
    /// chunked, under the `Content-Length` too; a `Transfer-Encoding` header of blanks keeps
    /// libcurl from choosing chunked (it defers to a caller's `Transfer-Encoding`) and is itself
    /// never sent (libcurl drops a header without a value). So the body goes as it should: its
    /// `Content-Length`, then exactly that many bytes. A body of unknown length (a FIFO, a
    /// stream without `length`) goes chunked.
    ///
    /// A `GET` with a body is sent under the method `GET` followed by a NUL (see
    /// ``methodSendingABody(_:)``); the header fields for the proxy alone are placed as
    /// ``URLSessionProxyRule/routingProxyHeaders(_:)`` says.
    func prepare(_ request: URLRequest, body: RequestBody?, in state: inout State) -> URLRequest {
        state.bodyStream?.closeReader()
        state.bodyStream = nil
        var request = request
        // Checked before the task is made (see URLSessionProxyRule.routingProxyHeaders); whatever
        // happens, a `Proxy-Authorization` is not sent as it is.
        do {
            request = try proxyRule.routingProxyHeaders(request)
        } catch {
            request.setValue(nil, forHTTPHeaderField: ProxyConfiguration.proxyAuthorization)
        }
        // The framing is the engine's alone (an interceptor may have added either header).
        request.setValue(nil, forHTTPHeaderField: "Content-Length")
        request.setValue(nil, forHTTPHeaderField: "Transfer-Encoding")
        guard let body else {
            request.httpMethod = Self.methodSendingABody(request)
            return request
        }
        let reader: Result<any BodyReader, HotPotatoError>
        do {
            reader = .success(try body.makeReader())
        } catch {
            reader = .failure(error)
        }
        let sink = sink
        let stream = BodyInputStream(reader: reader, idleTimeout: request.timeoutInterval) { sink.isFinished }
        request.httpBodyStream = stream
        request.setValue(body.length.map(String.init), forHTTPHeaderField: "Content-Length")
        #if canImport(FoundationNetworking)
        request.setValue(body.length == nil ? nil : " ", forHTTPHeaderField: "Transfer-Encoding")
        #endif
        request.httpMethod = Self.methodSendingABody(request)
        state.bodyStream = stream
        return request
    }

    /// The method to hand URLSession for `request`. FoundationNetworking refuses a `GET` with a
    /// body before sending anything (`NSURLErrorDataLengthExceedsMaximum`, "resource exceeds
    /// maximum size"), by comparing the method with `"GET"`; it then hands the method to libcurl
    /// as a C string. `"GET\0"` passes the comparison and reaches libcurl, and the wire, as `GET`:
    /// the request goes out as curl sends it, `GET` with its body and `Content-Length`. (A test
    /// checks what the server receives, so a FoundationNetworking that stops allowing it is
    /// noticed.) Apple's URLSession refuses such a request too, and is not given one (see
    /// ``URLSessionEngine/start(_:body:redirects:sink:)``).
    static func methodSendingABody(_ request: URLRequest) -> String? {
        #if canImport(FoundationNetworking)
        guard request.httpMethod == "GET", request.httpBodyStream != nil || request.httpBody?.isEmpty == false else {
            return request.httpMethod
        }
        return "GET\u{0}"
        #else
        return request.httpMethod
        #endif
    }

    /// Reports the body's progress from URLSession's count of the bytes it has handed to libcurl.
    func didSendBody(totalBytesSent: Int64) {
        noteActivity()
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
    /// - a replayable body (a file, a form) goes back to its first byte, and is sent whole;
    /// - a one-shot stream nothing was taken from yet is still at its start; one that was read
    ///   from fails the call with ``HotPotatoError/Code/bodyNotReplayable`` rather than send the
    ///   rest as if it were all (FoundationNetworking would take a new stream from where it is);
    /// - FoundationNetworking rewinds no body of its own (an `httpBody` of `Data`): it would send
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
}
