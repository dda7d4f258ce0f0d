import Foundation

/// The parser of a ``JSONElementStream``: HotPotato's incremental JSON parser in JSON Lines or
/// array-elements mode, each element decoded into `Element` as soon as it is complete.
final class JSONElementParser<Element: Decodable & Sendable>: ElementStreamParsing, @unchecked Sendable {
    private var parser: IncrementalJSONParser
    private let strategies: JSONDecodingStrategies
    private let keyPath: String?
    private var head: ResponseHead?
    /// The elements the parser completed during the current call, handed over when it returns
    /// (or throws).
    private var completed: [Element] = []

    init(
        mode: IncrementalJSONParser.Mode, keyPath: String?, decoder: JSONDecoder, parsingOptions: JSONParsingOptions,
        maximumElementSize: Int64
    ) {
        self.keyPath = keyPath
        strategies = JSONDecodingStrategies(decoder)
        let path = keyPath.map { $0.split(separator: ".", omittingEmptySubsequences: false).map(String.init) } ?? []
        parser = IncrementalJSONParser(mode: mode, path: path, options: parsingOptions)
        parser.maximumElementSize = maximumElementSize
        parser.onElement = { [unowned self] value, position in
            self.completed.append(try self.decode(value, at: position))
        }
    }

    var isComplete: Bool { false }

    var elementsEmitted: Int { parser.elementsEmitted }

    /// No: a JSON Lines or array body may be an export read as fast as it comes.
    static var arrivesSparsely: Bool { false }

    func prepare(for head: ResponseHead) {
        self.head = head
    }

    func parse(_ bytes: UnsafeRawBufferPointer, emit: (Element) -> Void) throws(HotPotatoError) {
        defer { handOver(emit) }
        do {
            try parser.feed(bytes)
        } catch {
            throw failure(error)
        }
    }

    func finish(emit: (Element) -> Void) throws(HotPotatoError) {
        defer { handOver(emit) }
        do {
            _ = try parser.finish()
        } catch {
            throw failure(error)
        }
    }

    private func handOver(_ emit: (Element) -> Void) {
        for element in completed { emit(element) }
        completed.removeAll(keepingCapacity: true)
    }

    private func decode(_ value: JSON, at position: IncrementalJSONParser.ElementPosition) throws -> Element {
        do {
            return try JSONValueDecoder.decode(Element.self, from: value, strategies: strategies)
        } catch let error as DecodingError {
            // The element's own bytes are gone by now (memory stays bounded); its value is not.
            throw HotPotatoError.conversion(
                .decodingFailed,
                "Element \(position.index) does not decode as \(Element.self): \(DecodingErrorText.describe(error)) "
                    + "(line \(position.line), column \(position.column), byte \(position.offset)).",
                intermediate: .bytes(value.serializedData()), keyPath: keyPath, head: head, underlying: error
            ).atElement(position.index).located(byteOffset: position.offset, line: position.line, column: position.column)
        }
    }

    /// What a throw from the parser or the decoder ends the stream with.
    private func failure(_ error: any Error) -> HotPotatoError {
        switch error {
        case let syntax as JSONSyntaxError:
            var failure = syntax.hotPotatoError(head: head, intermediate: nil).atElement(parser.elementsEmitted, keyPath: keyPath)
            if syntax.kind == .elementTooLarge { failure.limit = parser.maximumElementSize }
            return failure
        case let error as HotPotatoError:
            return error
        default:
            return HotPotatoError(.handlerFailed, reason: "\(error)", head: head, underlying: error)
        }
    }
}
