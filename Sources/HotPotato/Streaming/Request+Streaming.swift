import Foundation

extension Request {
    /// Streams a JSON Lines (NDJSON) body: one JSON value per line, each decoded into `type` as
    /// soon as its line is complete. See ``JSONElementStream``.
    ///
    /// ```swift
    /// for try await event in session.get(url).streamJSONLines(of: Event.self) {
    ///     print(event.name)
    /// }
    /// ```
    ///
    /// Blank lines are skipped; every other line must hold exactly one JSON value (`\r\n` line
    /// ends are fine). Accepts `application/x-ndjson`, `application/jsonl`,
    /// `application/json-lines`, `application/json`, `application/*+json` and `text/plain` by
    /// default (``accepting(contentTypes:)`` changes that); status `200...299`.
    /// - Parameters:
    ///   - type: The type of each line's value.
    ///   - decoder: The `JSONDecoder` whose strategies and `userInfo` to decode with.
    ///   - bufferSize: How many decoded elements may wait for the consumer before the transfer
    ///     waits too. Default 16.
    ///   - maximumElementSize: The longest line accepted, in bytes; longer fails with
    ///     ``HotPotatoError/Code/bodyTooLarge``. Default 16 MiB.
    ///   - parsingOptions: Nesting limit and duplicate-key policy.
    public func streamJSONLines<Element: Decodable & Sendable>(
        of type: Element.Type,
        using decoder: JSONDecoder = JSONDecoder(),
        bufferSize: Int = 16,
        maximumElementSize: Int64 = 16 * 1024 * 1024,
        parsingOptions: JSONParsingOptions = JSONParsingOptions()
    ) -> JSONElementStream<Element> {
        stream(mode: .lines, keyPath: nil, decoder: decoder, bufferSize: bufferSize, maximumElementSize: maximumElementSize,
               parsingOptions: parsingOptions,
               contentTypes: [.json, .anyJSON, "application/x-ndjson", "application/jsonl", "application/json-lines", .plainText])
    }

    /// Streams the elements of a JSON array — the top-level one, or the one at `keyPath` — each
    /// decoded into `type` as soon as it is complete. See ``JSONElementStream``.
    ///
    /// ```swift
    /// for try await user in session.get(url).streamJSONArray(of: User.self, atKeyPath: "users") {
    ///     print(user.name)
    /// }
    /// ```
    ///
    /// The rest of the document is checked but not kept; it fails with
    /// ``HotPotatoError/Code/invalidJSON`` when it has no array at the key path. Accepts
    /// `application/json` and `application/*+json` by default; status `200...299`.
    /// - Parameters:
    ///   - type: The type of each element.
    ///   - keyPath: Where the array is (`"data.users"`; array indices are numbers); `nil` for the
    ///     top-level array.
    ///   - decoder: The `JSONDecoder` whose strategies and `userInfo` to decode with.
    ///   - bufferSize: How many decoded elements may wait for the consumer before the transfer
    ///     waits too. Default 16.
    ///   - maximumElementSize: The largest element accepted, in bytes; larger fails with
    ///     ``HotPotatoError/Code/bodyTooLarge``. Default 16 MiB.
    ///   - parsingOptions: Nesting limit and duplicate-key policy.
    public func streamJSONArray<Element: Decodable & Sendable>(
        of type: Element.Type,
        atKeyPath keyPath: String? = nil,
        using decoder: JSONDecoder = JSONDecoder(),
        bufferSize: Int = 16,
        maximumElementSize: Int64 = 16 * 1024 * 1024,
        parsingOptions: JSONParsingOptions = JSONParsingOptions()
    ) -> JSONElementStream<Element> {
        stream(mode: .elements, keyPath: keyPath, decoder: decoder, bufferSize: bufferSize,
               maximumElementSize: maximumElementSize, parsingOptions: parsingOptions, contentTypes: [.json, .anyJSON])
    }

    private func stream<Element: Decodable & Sendable>(
        mode: IncrementalJSONParser.Mode, keyPath: String?, decoder: JSONDecoder, bufferSize: Int,
        maximumElementSize: Int64, parsingOptions: JSONParsingOptions, contentTypes: [MediaType]
    ) -> JSONElementStream<Element> {
        let decoderBox = UncheckedSendable(decoder)
        // The request without its handler's type, which the closure below must not capture.
        let request = replacingHandler { SelectiveDiscarder() }
        return JSONElementStream(start: {
            let parser = JSONElementParser<Element>(
                mode: mode, keyPath: keyPath, decoder: decoderBox.value, parsingOptions: parsingOptions,
                maximumElementSize: maximumElementSize)
            return request.startElementStream(
                ElementStreamState(parser: parser, capacity: bufferSize), gate: ResponseGate(contentTypes: contentTypes))
        })
    }
}

extension Request {
    /// Sends the request with an ``ElementStreamer`` feeding `state`, and ties the two together: the
    /// stream's consumer going away cancels the call, and the call's end ends the stream.
    func startElementStream<Parser: ElementStreamParsing>(
        _ state: ElementStreamState<Parser>, gate: ResponseGate
    ) -> ElementStreamState<Parser> {
        let call = replacingHandler { ElementStreamer(state: state, gate: gate) }.start()
        state.onCancel { call.cancel() }
        call.observe { outcome in state.transferDidEnd(outcome.map { _ in }) }
        return state
    }
}
