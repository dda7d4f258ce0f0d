import Foundation

extension Request {
    /// Streams a `text/event-stream` body (Server-Sent Events): each event as soon as its block
    /// is complete. See ``ServerSentEventStream``.
    ///
    /// ```swift
    /// for try await event in session.get(url).streamEvents() {
    ///     print(event.type, event.data)
    /// }
    /// ```
    ///
    /// Sends `Accept: text/event-stream` unless the chain set an `Accept` of its own. Accepts
    /// `text/event-stream` and `2xx` by default (``accepting(statusCodes:)-(Set<Int>)`` and
    /// ``accepting(contentTypes:)`` change that). A request whose session or chain retries
    /// (``RetryPolicy``) is retried only until the stream has received its first body byte: after
    /// that, only `reconnection` starts it again, where the events left off.
    /// - Parameters:
    ///   - endMarker: The data of an event that ends the stream, such as `"[DONE]"`: the stream
    ///     ends normally without it and the transfer stops. Default none.
    ///   - reconnection: Whether and how to reconnect when the connection drops, as `EventSource`
    ///     does (with `Last-Event-ID`); default none: a dropped connection ends the stream with its
    ///     error.
    ///   - bufferSize: How many events may wait for the consumer before the transfer waits too.
    ///     Default 16.
    ///   - maximumEventSize: The largest event accepted, in bytes; larger fails with
    ///     ``HotPotatoError/Code/bodyTooLarge``. Default 16 MiB.
    public func streamEvents(
        endMarker: String? = nil,
        reconnection: EventStreamReconnection? = nil,
        bufferSize: Int = 16,
        maximumEventSize: Int = 16 * 1024 * 1024
    ) -> ServerSentEventStream<ServerSentEvent> {
        eventStream(endMarker: endMarker, reconnection: reconnection, bufferSize: bufferSize,
                    maximumEventSize: maximumEventSize) { $0 }
    }

    /// Streams a `text/event-stream` body (Server-Sent Events), each event's data decoded as
    /// JSON into `type` with HotPotato's decoder as soon as the event is complete: what a
    /// streaming language-model API sends.
    ///
    /// ```swift
    /// for try await delta in session.post(url).body(json: prompt).streamEvents(decoding: Delta.self) {
    ///     print(delta.text, terminator: "")
    /// }
    /// ```
    ///
    /// Every event is decoded, whatever its type; an event whose data is not JSON, or does not
    /// decode as `type`, ends the stream with ``HotPotatoError/Code/invalidJSON`` or
    /// ``HotPotatoError/Code/decodingFailed`` (the data in ``HotPotatoError/intermediate``). To
    /// pick events by type, stream them undecoded with
    /// ``streamEvents(endMarker:reconnection:bufferSize:maximumEventSize:)`` and call
    /// ``ServerSentEvent/decode(_:using:)`` on those you want.
    /// - Parameters:
    ///   - type: The type each event's data decodes into.
    ///   - decoder: The `JSONDecoder` whose strategies and `userInfo` to decode with.
    ///   - endMarker: The data of an event that ends the stream normally. Default `"[DONE]"`, the
    ///     marker of OpenAI-style APIs (it is not JSON, so it could never decode); `nil` for none.
    ///   - reconnection: Whether and how to reconnect when the connection drops; default none.
    ///   - bufferSize: How many decoded events may wait for the consumer before the transfer
    ///     waits too. Default 16.
    ///   - maximumEventSize: The largest event accepted, in bytes. Default 16 MiB.
    public func streamEvents<Value: Decodable & Sendable>(
        decoding type: Value.Type,
        using decoder: JSONDecoder = JSONDecoder(),
        endMarker: String? = "[DONE]",
        reconnection: EventStreamReconnection? = nil,
        bufferSize: Int = 16,
        maximumEventSize: Int = 16 * 1024 * 1024
    ) -> ServerSentEventStream<Value> {
        let strategies = UncheckedSendable(JSONDecodingStrategies(decoder))
        return eventStream(endMarker: endMarker, reconnection: reconnection, bufferSize: bufferSize,
                           maximumEventSize: maximumEventSize) { event in
            try event.decode(Value.self, strategies: strategies.value)
        }
    }

    private func eventStream<Element: Sendable>(
        endMarker: String?, reconnection: EventStreamReconnection?, bufferSize: Int, maximumEventSize: Int,
        transform: @escaping EventStreamElementParser<Element>.Transform
    ) -> ServerSentEventStream<Element> {
        // The request without its handler's type, which the closure below must not capture.
        var request = replacingHandler { SelectiveDiscarder() }
        if !request.spec.headers.contains("Accept") {
            request.spec.headers.add(name: "Accept", value: MediaType.eventStream.description)
        }
        let maximumEventSize = max(1, maximumEventSize)
        return ServerSentEventStream(connect: { [request] lastEventID in
            let parser = EventStreamElementParser(
                maximumEventSize: maximumEventSize, lastEventID: lastEventID, endMarker: endMarker, transform: transform)
            let attempt = lastEventID.isEmpty ? request : request.with {
                $0.spec.headers.replaceOrAdd(name: "Last-Event-ID", value: lastEventID)
            }
            return attempt.startElementStream(ElementStreamState(parser: parser, capacity: bufferSize), gate: .eventStream)
        }, reconnection: reconnection)
    }
}
