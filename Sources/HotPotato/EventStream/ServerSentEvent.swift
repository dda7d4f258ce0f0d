import Foundation

/// One event of a `text/event-stream` body, as ``ServerSentEventParser`` dispatches it.
///
/// Internal for now: the public event type and `Request.streamEvents()` come with the streaming
/// handler (issue 21).
struct ServerSentEvent: Sendable, Equatable {
    /// The event type: the last `event:` field of its block, or `"message"`.
    var type: String
    /// The `data:` fields of its block, joined with line feeds.
    var data: String
    /// The last event ID: set by the latest `id:` field of the stream (not only of this block),
    /// empty until one is; what a reconnection sends as `Last-Event-ID`.
    var id: String
    /// The reconnection time the block's `retry:` field set, in milliseconds, if it had one.
    var retry: Int?
}
