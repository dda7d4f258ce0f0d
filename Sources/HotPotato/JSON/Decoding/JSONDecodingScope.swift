import Foundation

/// One decoding's hold on its tape and bytes: open while the decoding runs, closed when it returns.
///
/// Decoders and containers check it before they read. It is a plain value, so a container can
/// hold it without being retained and released on every call (`KeyedDecodingContainer` copies its
/// container for each one): the open flag is a generation number in a word of memory that is
/// never freed. Closing the scope moves the word on, and the word is then given to a later
/// decoding, whose scope has a generation no earlier scope has. A container kept past its
/// decoding reads a live word and finds the scope closed; it never reads freed memory.
struct JSONDecodingScope {
    private let cell: UnsafeMutablePointer<UInt64>
    private let generation: UInt64

    /// Opens a scope.
    static func open() -> JSONDecodingScope {
        let cell = Cells.shared.take()
        return JSONDecodingScope(cell: cell, generation: cell.pointee)
    }

    /// Closes the scope: every check of it from now on fails.
    func close() {
        guard isOpen else { return }
        cell.pointee &+= 1
        Cells.shared.give(cell)
    }

    var isOpen: Bool { cell.pointee == generation }

    /// Stops the process if the scope is closed: the tape and bytes are gone.
    @inline(__always)
    func check() {
        precondition(isOpen, "A JSON Decoder or decoding container was used after the decoding that gave it out had returned")
    }

    /// The words of closed scopes, waiting for the next decodings. There are as many words as
    /// decodings have ever run at once.
    private final class Cells: @unchecked Sendable {
        static let shared = Cells()

        private let lock = NSLock()
        private var free: [UnsafeMutablePointer<UInt64>] = []

        func take() -> UnsafeMutablePointer<UInt64> {
            lock.lock()
            defer { lock.unlock() }
            if let cell = free.popLast() { return cell }
            let cell = UnsafeMutablePointer<UInt64>.allocate(capacity: 1)
            cell.initialize(to: 0)
            return cell
        }

        func give(_ cell: UnsafeMutablePointer<UInt64>) {
            lock.lock()
            defer { lock.unlock() }
            free.append(cell)
        }
    }
}
