import Foundation

extension Request {
    /// Sends `form` as a `multipart/form-data` body, with its `Content-Type` (and boundary).
    ///
    /// Files are streamed from disk as the body is sent, in a few small buffers whatever their
    /// size, with an exact `Content-Length` when every file is a regular file; the form is sent
    /// again from its first byte on a `307` or `308` redirect and on a retry. See
    /// ``MultipartFormData`` and <doc:Uploading>.
    ///
    /// ```swift
    /// var form = MultipartFormData()
    /// form.append("spud", name: "name")
    /// form.append(fileAt: photoURL, name: "photo", contentType: "image/jpeg")
    /// let reply = try await session.post(url).body(multipart: form).asJSON().content
    /// ```
    public func body(multipart form: MultipartFormData) -> Request {
        with { request in
            request.spec.body = form.problem.map { .invalid($0) } ?? .multipart(form)
            request.spec.headers.replaceOrAdd(name: "Content-Type", value: form.contentType)
        }
    }

    /// Sends `fields` as an `application/x-www-form-urlencoded` body, in their order (a name may
    /// repeat), encoded as the WHATWG URL standard's form serializer encodes them: UTF-8, a space
    /// as `+`, and every byte but ASCII letters, digits, `*`, `-`, `.` and `_` as `%XX`.
    ///
    /// ```swift
    /// let reply = try await session.post(url).body(form: [("q", "hot potato"), ("page", "2")]).asJSON().content
    /// ```
    public func body(form fields: [(name: String, value: String)]) -> Request {
        with { request in
            request.spec.body = .data(FormURLEncoding.encode(fields.lazy.map { ($0.name, $0.value) }))
            request.spec.headers.replaceOrAdd(name: "Content-Type", value: "application/x-www-form-urlencoded")
        }
    }

    /// Sends `fields` as an `application/x-www-form-urlencoded` body, written as a dictionary
    /// literal (`["q": "hot potato", "page": "2"]`) but kept in order, and encoded as the list of
    /// pairs is.
    public func body(form fields: KeyValuePairs<String, String>) -> Request {
        body(form: fields.map { (name: $0.key, value: $0.value) })
    }

    /// Streams the elements of `chunks` as the body, each pulled only when the engine is ready
    /// to send it: memory holds an element or two, whatever the body's size.
    ///
    /// ```swift
    /// let (chunks, continuation) = AsyncStream.makeStream(of: Data.self)
    /// let call = session.put(url).body(stream: chunks).start()
    /// continuation.yield(Data("first".utf8)); continuation.yield(Data(" and last".utf8))
    /// continuation.finish()
    /// ```
    ///
    /// - **Length:** without a `length` the body is sent with chunked transfer encoding; with one,
    ///   as its `Content-Length`, and the stream must produce exactly that many bytes (more or
    ///   fewer fails the call with ``HotPotatoError/Code/invalidRequest``). A `Content-Length` or
    ///   `Transfer-Encoding` header of your own is dropped.
    /// - **Sent once.** The sequence is iterated once, for one run of the request: a `307` or `308`
    ///   redirect that would send it again fails the call with
    ///   ``HotPotatoError/Code/bodyNotReplayable`` (with the redirect's `head`); a retry is made
    ///   only while nothing has been taken from the sequence (the error says why it was not); and
    ///   running the request again fails the same way.
    /// - **Timing:** waiting for the next element counts towards the request's idle timeout. On
    ///   the URLSession engine on Linux the wait holds FoundationNetworking's thread for the session,
    ///   so the session's other transfers wait with it; the libcurl engine waits on the transfer's
    ///   own thread.
    /// - **Errors:** an error the sequence throws fails the call: a ``HotPotatoError`` as it is,
    ///   anything else as ``HotPotatoError/Code/invalidRequest`` with it as the `underlying` error.
    ///   Cancelling the call cancels the task iterating the sequence.
    ///
    /// Empty elements are skipped.
    public func body<Chunks: AsyncSequence & Sendable>(
        stream chunks: Chunks, length: Int64? = nil, contentType: String? = nil
    ) -> Request where Chunks.Element == Data {
        streamed(OneShotBody.streaming(chunks, length: length), length: length, contentType: contentType)
    }

    /// Streams the bytes of `stream` as the body, read on a thread of HotPotato's own, a buffer at
    /// a time, only as fast as the engine sends them. The stream is opened if needed and closed at
    /// its end. Like a body from an `AsyncSequence` (see ``body(stream:length:contentType:)-(Chunks,_,_)``):
    /// chunked without a `length`, sent once, and a stream error fails the call with
    /// ``HotPotatoError/Code/invalidRequest`` (its `streamError` as the `underlying` error).
    public func body(stream: InputStream, length: Int64? = nil, contentType: String? = nil) -> Request {
        streamed(OneShotBody.reading(stream, length: length), length: length, contentType: contentType)
    }

    private func streamed(_ body: OneShotBody, length: Int64?, contentType: String?) -> Request {
        with { request in
            if let length, length < 0 {
                request.spec.body = .invalid(HotPotatoError(.invalidRequest, reason: "A body's length cannot be negative (\(length))."))
            } else {
                request.spec.body = .stream(body)
            }
            if let contentType { request.spec.headers.replaceOrAdd(name: "Content-Type", value: contentType) }
        }
    }

    /// Calls `callback` with the request body's progress — bytes sent and expected — at most every
    /// ``Session/Configuration/progressInterval`` and once when the whole body is sent.
    ///
    /// Each call adds a callback, as ``onProgress(queue:_:)`` does for the response body. A body
    /// sent again (a `307` or `308` redirect, a retry) counts from 0 again; a request without a
    /// body reports nothing. See ``UploadProgress``.
    /// - Parameters:
    ///   - queue: The queue to call it on; by default a serial queue of the call's own.
    ///   - callback: Receives bytes sent and expected.
    public func onUploadProgress(queue: DispatchQueue? = nil, _ callback: @escaping @Sendable (UploadProgress) -> Void) -> Request {
        with { request in
            request.options.uploadProgressObservers.append(ProgressReporter.Observer(queue: queue, callback: callback))
        }
    }
}
