import Foundation

/// The elements of a JSON Lines body, or of a JSON array in a body, decoded one by one as they
/// arrive — an `AsyncSequence` from ``Request/streamJSONLines(of:using:bufferSize:maximumElementSize:parsingOptions:)``
/// or ``Request/streamJSONArray(of:atKeyPath:using:bufferSize:maximumElementSize:parsingOptions:)``.
///
/// ```swift
/// for try await event in session.get(url).streamJSONLines(of: Event.self) {
///     handle(event)
/// }
/// ```
///
/// **Memory** stays bounded by the largest element, not the body: each element is parsed,
/// decoded, handed over and dropped; what lies outside the streamed array is checked but not
/// kept. At most `bufferSize` decoded elements wait for the consumer; when they are not taken,
/// the transfer **waits** (the body is not read further), so a slow consumer slows the download
/// instead of filling memory.
///
/// **Errors** end the sequence after the elements that came before — nothing is dropped
/// silently: a syntax error is ``HotPotatoError/Code/invalidJSON``, an element that does not
/// decode is ``HotPotatoError/Code/decodingFailed`` (with the `DecodingError` as
/// ``HotPotatoError/underlying``), an element over `maximumElementSize` is
/// ``HotPotatoError/Code/bodyTooLarge``, a body cut short is ``HotPotatoError/Code/truncatedBody``
/// (or ``HotPotatoError/Code/invalidJSON`` when the server ended it cleanly mid-element). Each
/// carries ``HotPotatoError/elementIndex`` — the index of the element that failed, which is also
/// how many were delivered before it — and ``HotPotatoError/byteOffset``,
/// ``HotPotatoError/line`` and ``HotPotatoError/column``. A rejected status or content type
/// fails the first `next()` with the usual ``HotPotatoError/errorBody``.
///
/// The request is sent when iteration starts; iterating the sequence again sends it again.
/// Stopping early (`break`, or cancelling the task) cancels the transfer.
public struct JSONElementStream<Element: Decodable & Sendable>: AsyncSequence, Sendable {
    public typealias Failure = HotPotatoError

    /// Makes the shared state and starts the request that feeds it.
    let start: @Sendable () -> ElementStreamState<JSONElementParser<Element>>

    /// Starts the request and returns an iterator over its elements.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(state: start())
    }

    /// Iterates over the elements; one consumer at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// Cancels the transfer when the iterator is dropped before the end.
        final class Lifetime: Sendable {
            let state: ElementStreamState<JSONElementParser<Element>>

            init(state: ElementStreamState<JSONElementParser<Element>>) {
                self.state = state
            }

            deinit {
                state.cancel()
            }
        }

        let lifetime: Lifetime

        init(state: ElementStreamState<JSONElementParser<Element>>) {
            lifetime = Lifetime(state: state)
        }

        /// The next element, or `nil` after the last one.
        ///
        /// - Throws: ``HotPotatoError`` when the stream failed (see ``JSONElementStream``).
        public mutating func next() async throws(HotPotatoError) -> Element? {
            try await lifetime.state.next().get()
        }

        /// The next element, or `nil` after the last one.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(HotPotatoError) -> Element? {
            try await lifetime.state.next().get()
        }
    }
}
