/// A handler that may be lent chunks whose bytes an engine still owns.
///
/// An engine that reads into a buffer of its own (the libcurl engine does) would otherwise copy
/// each chunk before ``ContentHandler/receive(_:)``. A handler that never keeps a chunk — that
/// copies what it needs, writes it, or parses it, and holds no reference to the `Data` once
/// `receive(_:)` returns — can take the engine's bytes as they are, and says so here.
///
/// HotPotato's handlers declare it for their own class only (``SelectiveDiscarder/receivesBorrowedChunks``
/// is `true` for an `Accumulator`, not for a subclass of it, which might keep its chunks); a
/// subclass that never keeps a chunk overrides the property to return `true`. A transport of your
/// own that feeds a ``ResponseDriver`` from a buffer it reuses can ask the same question:
///
/// ```swift
/// if (handler as? any ChunkBorrowing)?.receivesBorrowedChunks == true {
///     driver.receive(Data(bytesNoCopy: base, count: count, deallocator: .none))
/// } else {
///     driver.receive(Data(bytes: base, count: count))
/// }
/// ```
public protocol ChunkBorrowing: ContentHandler {
    /// Whether ``ContentHandler/receive(_:)`` may be given a chunk whose bytes are valid only
    /// until it returns.
    var receivesBorrowedChunks: Bool { get }
}
