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
    /// Sends `Accept: text/event-stream` and `Cache-Control: no-cache`, as `EventSource` does,
    /// unless the chain set its own. Accepts `200` with `text/event-stream`, and a `204` as an
    /// empty stream (``ResponseGate/eventStream``; ``accepting(statusCodes:)-(Set<Int>)`` and
    /// ``accepting(contentTypes:)`` change that). The first connection of a request whose session
    /// or chain retries (``RetryPolicy``) is retried only until the stream has received its first
    /// body byte; after that, only `reconnection` opens the stream again, where the events left
    /// off — and a reconnection is never retried by the policy.
    /// - Parameters:
    ///   - endMarker: The data of an event that ends the stream, such as `"[DONE]"`: the stream
    ///     ends normally without it and the transfer stops. Default none.
    ///   - reconnection: Whether and how to reconnect when the connection drops or the server
    ///     ends the body, as `EventSource` does (with `Last-Event-ID`, a floor, a backoff and a
    ///     budget: see ``EventStreamReconnection``); default none: a dropped connection ends the
    ///     stream with its error, a body that ends ends it.
    ///   - bufferSize: How many events may wait for the consumer before the transfer waits too.
    ///     Default 16.
    ///   - maximumEventSize: The most bytes an event may hold while it is read — its data, its
    ///     type, the last event ID and the line being read, together; more fails with
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
    ///   - reconnection: Whether and how to reconnect when the connection drops or the body
    ///     ends (see ``EventStreamReconnection``); default none. The end marker is never
    ///     reconnected: a stream that ended with it is never sent again.
    ///   - bufferSize: How many decoded events may wait for the consumer before the transfer
    ///     waits too. Default 16.
    ///   - maximumEventSize: The most bytes an event may hold while it is read (data, type, last
    ///     event ID and the line being read, together). Default 16 MiB.
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
        // As EventSource: ask for an event stream, and for one no cache has kept.
        if !request.spec.headers.contains("Accept"), !request.spec.omittedHeaders.contains("accept") {
            request.spec.headers.add(name: "Accept", value: MediaType.eventStream.description)
        }
        if !request.spec.headers.contains("Cache-Control"), !request.spec.omittedHeaders.contains("cache-control") {
            request.spec.headers.add(name: "Cache-Control", value: "no-cache")
        }
        let maximumEventSize = max(1, maximumEventSize)
        return ServerSentEventStream(connect: { [request] lastEventID, isReconnection, clock in
            let parser = EventStreamElementParser(
                maximumEventSize: maximumEventSize, lastEventID: lastEventID, endMarker: endMarker, now: clock.now,
                transform: transform)
            var attempt = request
            if !lastEventID.isEmpty { attempt.spec.headers.replaceOrAdd(name: "Last-Event-ID", value: lastEventID) }
            // A reconnection is the reconnection policy's alone: an answer other than 200 ends
            // the stream, however transient a retry policy would find it.
            if isReconnection { attempt = attempt.retry(.never) }
            return attempt.startElementStream(ElementStreamState(parser: parser, capacity: bufferSize), gate: .eventStream)
        }, reconnection: reconnection)
    }
}
