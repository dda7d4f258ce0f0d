import Foundation

/// The parser of a ``ServerSentEventStream``: the event-stream rules
/// (``ServerSentEventScanner``), each event turned into an element — the event itself, or its
/// data decoded as JSON — and an optional end marker.
final class EventStreamElementParser<Element: Sendable>: ElementStreamParsing, @unchecked Sendable {
    /// Makes an element of an event: the event, or its data decoded. Throws the error that ends
    /// the stream.
    typealias Transform = @Sendable (ServerSentEvent) throws -> Element

    private var scanner: ServerSentEventScanner
    private let transform: Transform
    private let endMarker: String?
    private let now: @Sendable () -> TimeInterval
    /// The response head, once it came.
    private(set) var head: ResponseHead?
    /// When the head came, by `now`: how long the connection was up is measured from it.
    private(set) var connectedAt: TimeInterval?

    private(set) var isComplete = false
    private(set) var elementsEmitted = 0

    /// Yes: an event stream is open for long and mostly waits.
    static var arrivesSparsely: Bool { true }

    /// - Parameters:
    ///   - maximumEventSize: The largest event accepted, in bytes.
    ///   - lastEventID: The last event ID of the stream this connection continues.
    ///   - endMarker: The data of the event that ends the stream (not delivered), if any.
    ///   - now: The clock the time of the head is read from.
    ///   - transform: Makes an element of each event.
    init(
        maximumEventSize: Int, lastEventID: String, endMarker: String?, now: @escaping @Sendable () -> TimeInterval = EventStreamClock.system.now,
        transform: @escaping Transform
    ) {
        scanner = ServerSentEventScanner(maximumEventSize: maximumEventSize, lastEventID: lastEventID)
        self.endMarker = endMarker
        self.now = now
        self.transform = transform
    }

    /// The last event ID a reconnection sends: that of the last block read to its end.
    var lastEventID: String { scanner.committedEventID }

    /// The reconnection time the stream asked for last, in milliseconds.
    var reconnectionTime: Int? { scanner.reconnectionTime }

    func prepare(for head: ResponseHead) {
        self.head = head
        connectedAt = now()
    }

    func parse(_ bytes: UnsafeRawBufferPointer, emit: (Element) -> Void) throws(HotPotatoError) {
        guard !isComplete else { return }
        do {
            try scanner.feed(bytes) { event, offset in
                guard !isComplete else { return }
                if let endMarker, event.data == endMarker {
                    isComplete = true
                    return
                }
                let element: Element
                do {
                    element = try transform(event)
                } catch {
                    throw failure(error, event: event, offset: offset)
                }
                elementsEmitted += 1
                emit(element)
            }
        } catch let error as HotPotatoError {
            var error = error
            if error.head == nil { error.head = head }
            if error.elementIndex == nil { error.elementIndex = elementsEmitted }
            throw error
        } catch {
            throw HotPotatoError(.handlerFailed, reason: "\(error)", head: head, underlying: error)
        }
    }

    /// An event still open at the end is discarded, as the standard says: never an error.
    func finish(emit: (Element) -> Void) throws(HotPotatoError) {
        scanner.finish()
    }

    /// The error a failed transform ends the stream with: the event's index, where its block
    /// began, and its data, so that nothing the server sent is lost.
    private func failure(_ error: any Error, event: ServerSentEvent, offset: Int64) -> HotPotatoError {
        var failure: HotPotatoError
        switch error {
        case let error as HotPotatoError:
            failure = error
        case let error as DecodingError:
            failure = HotPotatoError(
                .decodingFailed,
                reason: "Event \(elementsEmitted) does not decode as \(Element.self): \(DecodingErrorText.describe(error)).",
                underlying: error)
        default:
            failure = HotPotatoError(.conversionFailed, reason: "Event \(elementsEmitted) could not be converted: \(error)", underlying: error)
        }
        failure.head = head
        failure.intermediate = .text(event.data)
        failure.elementIndex = elementsEmitted
        failure.byteOffset = offset
        return failure
    }
}
