import Foundation

/// A request in flight: await its response, follow its progress, or cancel it.
///
/// ```swift
/// let call = session.get(url).downloadToFile(at: destination).start()
/// Task { for await progress in call.progress { print(progress.bytesReceived) } }
/// let file = try await call.response().content
/// ```
public final class Call<Content: Sendable>: Sendable {
    private let completion: Completion<Content>
    private let cancelAction: @Sendable () -> Void
    private let reporter: ProgressReporter

    /// The body's progress, throttled; the sequence ends when the call completes. It keeps only
    /// the newest update for a slow reader. Every read returns the same sequence, which starts
    /// with the newest update made before it was first read.
    public var progress: AsyncStream<TransferProgress> {
        reporter.stream
    }

    /// The request body's progress, throttled, as ``progress`` is the response body's: the
    /// sequence ends when the call completes, keeps only the newest update for a slow reader, and
    /// is the same every time it is read. A body sent again (a `307` or `308` redirect, a retry)
    /// counts from 0 again. A request without a body reports nothing.
    public var uploadProgress: AsyncStream<UploadProgress> {
        reporter.uploadStream
    }

    init(completion: Completion<Content>, progress: ProgressReporter, cancel: @escaping @Sendable () -> Void) {
        self.completion = completion
        self.reporter = progress
        self.cancelAction = cancel
    }

    /// Cancels the call. It completes promptly with ``HotPotatoError/Code/cancelled`` — without
    /// waiting for the transport — once the handler call in progress, if any, returns; the handler
    /// cleans up, and chunks that still arrive are ignored. Does nothing once the call is complete.
    public func cancel() {
        cancelAction()
    }

    /// Whether the call has completed (successfully, with an error, or cancelled).
    public var isComplete: Bool {
        completion.outcome != nil
    }

    /// Waits for the response. Cancelling the awaiting `Task` cancels the call.
    public func response() async throws(HotPotatoError) -> Response<Content> {
        let completion = completion
        let outcome = await withTaskCancellationHandler {
            await completion.wait()
        } onCancel: {
            self.cancel()
        }
        return try outcome.get()
    }

    func observe(_ observer: @escaping @Sendable (Result<Response<Content>, HotPotatoError>) -> Void) {
        completion.observe(observer)
    }
}
