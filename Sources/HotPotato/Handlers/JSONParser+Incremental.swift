import Foundation

/// Incremental parsing: the byte-order mark held back and sniffed, the chunks fed to the
/// incremental parser, and the tape or tree taken from it at the end (or the whole body parsed
/// at once, for another charset).
extension JSONParser {
    /// Holds back the first three bytes, then drops a UTF-8 byte-order mark, or gives up
    /// incremental parsing for a UTF-16 or UTF-32 one (the whole body is decoded at the end).
    func feedLeading(_ chunk: Data) throws {
        leadingBytes.append(contentsOf: chunk)
        guard leadingBytes.count >= 3 else { return }
        try releaseLeadingBytes()
    }

    func releaseLeadingBytes() throws {
        leadingBytesPending = false
        let held = Data(leadingBytes)
        leadingBytes = []
        if let mark = TextEncodings.byteOrderMark(of: held) {
            guard mark.encoding == .utf8 else {
                parser = nil
                isParsing = false
                return
            }
            parser?.skipLeadingBytes(mark.length)
            try feed(held.dropFirst(mark.length))
        } else {
            try feed(held)
        }
    }

    func feed(_ bytes: Data) throws {
        guard isParsing else { return }
        do {
            try bytes.withUnsafeBytes { try parser!.feed($0) }
        } catch let error as JSONSyntaxError {
            throw invalidJSON(error, intermediate: .bytes(body))
        }
    }

    /// The tape of the body, when the parser recorded one: `nil` for an empty body and for a body
    /// decoded from another charset, which go through ``finishDocument(_:)``.
    func finishTape(_ body: Data) throws -> JSONTape? {
        // Taken from the parser once; kept for a subclass that asks for the content again.
        if let finishedTape { return finishedTape }
        guard !body.isEmpty else { return nil }
        if leadingBytesPending { try releaseLeadingBytes() }
        guard isParsing, case .tape = parser?.mode, (parser?.consumed ?? 0) > 0 else { return nil }
        do {
            _ = try parser!.finish()
        } catch let error as JSONSyntaxError {
            throw invalidJSON(error, intermediate: .bytes(body))
        }
        finishedTape = parser!.tape.take()
        return finishedTape
    }

    /// The parsed document: from the incremental parser when it ran, otherwise from the whole
    /// body.
    func finishDocument(_ body: Data) throws -> JSON {
        if body.isEmpty || !isParsing && !leadingBytesPending {
            return try parseDocument(body)
        }
        if leadingBytesPending { try releaseLeadingBytes() }
        guard isParsing else { return try parseDocument(body) }
        if (parser?.consumed ?? 0) == 0 { return try parseDocument(Data()) }
        do {
            return try parser!.finish()
        } catch let error as JSONSyntaxError {
            throw invalidJSON(error, intermediate: .bytes(body))
        }
    }

    func invalidJSON(_ error: JSONSyntaxError, intermediate: IntermediateContent) -> HotPotatoError {
        error.hotPotatoError(head: head, intermediate: intermediate)
    }

    /// Parses a whole body into a ``JSON`` value, following the encoding and empty-body rules
    /// above.
    ///
    /// - Throws: ``HotPotatoError/Code/emptyBody``, ``HotPotatoError/Code/invalidJSON``, or a text
    ///   decoding error for a body in another charset.
    public func parseDocument(_ body: Data) throws -> JSON {
        if body.isEmpty {
            if head?.hasNoBody == true || emptyBodyPolicy == .null { return .null }
            throw HotPotatoError(.emptyBody, reason: "The response body is empty; JSON was expected.", head: head)
        }
        var utf8 = body
        var intermediate = IntermediateContent.bytes(body)
        let encoding = try BodyText.encoding(for: body, override: nil, head: head)
        if encoding != .utf8 {
            let text = try BodyText.decode(body, override: encoding, head: head)
            utf8 = Data(text.utf8)
            intermediate = .text(text)
        }
        do {
            return try JSONBackend.parse(utf8, options: parsingOptions)
        } catch {
            throw invalidJSON(error, intermediate: intermediate)
        }
    }
}
