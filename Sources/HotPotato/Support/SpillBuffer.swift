import Foundation

/// Body bytes set aside for a consumer that has not taken them yet, oldest first: in memory up to
/// `memoryLimit` bytes, and beyond that in an anonymous temporary file (``SpillFile``), so memory
/// stays bounded however far the consumer falls behind. Both places that hold a body back for a
/// slow consumer use it: the URLSession engine's backlog and the JSON element stream.
///
/// The file is made on the first spill and kept, emptied each time it is drained, until the
/// buffer goes away. A failure to make it or to write to it is thrown as it is: the caller names
/// the error (``HotPotatoError/Code/bufferingFailed``, …).
///
/// Not thread-safe by itself: callers serialise its calls, except that reading a file block
/// (``bytes(of:)``) may run concurrently with ``append(_:)``, since appends never touch the
/// region a block covers.
final class SpillBuffer: @unchecked Sendable {
    /// Where the oldest bytes set aside are.
    enum Block {
        /// A chunk kept in memory.
        case memory(Data)
        /// `count` bytes of the file, at `offset`.
        case file(offset: Int64, count: Int)
    }

    private let memoryLimit: Int
    private let readSize: Int
    /// The chunks kept in memory, oldest first; all older than the file's bytes.
    private var chunks: [Data] = []
    private var chunkBytes = 0
    private var file: SpillFile?

    /// - Parameters:
    ///   - memoryLimit: How many bytes are kept in memory before the rest goes to the file; 0
    ///     sends every chunk to the file.
    ///   - readSize: The most bytes a file block holds.
    init(memoryLimit: Int, readSize: Int) {
        self.memoryLimit = memoryLimit
        self.readSize = readSize
    }

    /// Makes the file now rather than at the first spill, so that a caller can tell that it
    /// cannot be made before it depends on it.
    func makeFile() throws {
        if file == nil { file = try SpillFile() }
    }

    /// Whether nothing is set aside.
    var isEmpty: Bool { chunks.isEmpty && (file?.pending ?? 0) == 0 }

    /// Sets `chunk` aside: in memory while the file is empty and the chunk fits under the limit,
    /// otherwise at the end of the file.
    func append(_ chunk: Data) throws {
        guard !chunk.isEmpty else { return }
        if (file?.pending ?? 0) == 0 && chunkBytes + chunk.count <= memoryLimit {
            chunks.append(chunk)
            chunkBytes += chunk.count
            return
        }
        try makeFile()
        try file!.append(chunk)
    }

    /// The oldest block, or `nil` when nothing is set aside. It stays set aside until
    /// ``consume(_:)``.
    func oldest() -> Block? {
        if let chunk = chunks.first { return .memory(chunk) }
        guard let file, file.pending > 0 else { return nil }
        return .file(offset: file.readOffset, count: Int(min(file.pending, Int64(readSize))))
    }

    /// The bytes of `block`, read from the file for a file block.
    func bytes(of block: Block) throws -> Data {
        switch block {
        case .memory(let chunk): return chunk
        case .file(let offset, let count): return try file!.read(at: offset, count: count)
        }
    }

    /// Removes `block`, the one ``oldest()`` returned.
    func consume(_ block: Block) {
        switch block {
        case .memory(let chunk):
            chunks.removeFirst()
            chunkBytes -= chunk.count
        case .file(_, let count):
            file?.consume(count)
        }
    }

    /// Takes the oldest block's bytes, or `nil` when nothing is set aside.
    func takeOldest() throws -> Data? {
        guard let block = oldest() else { return nil }
        let data = try bytes(of: block)
        consume(block)
        return data
    }

    /// Drops everything set aside.
    func removeAll() {
        chunks.removeAll()
        chunkBytes = 0
        file = nil
    }
}
