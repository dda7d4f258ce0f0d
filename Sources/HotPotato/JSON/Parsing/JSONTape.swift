import Foundation

/// The tape of a parsed document (see ``JSONTapeEntry``): its entries, in memory it owns and frees.
///
/// Written once by a ``JSONTapeWriter`` and never changed after, so it may be shared between
/// threads (a ``JSONDocument`` is `Sendable`).
final class JSONTape: @unchecked Sendable {
    /// The entries, valid while the tape lives.
    let entries: UnsafeBufferPointer<JSONTapeEntry>

    /// Takes ownership of `count` entries at `base`, allocated with `malloc`.
    init(taking base: UnsafeMutablePointer<JSONTapeEntry>?, count: Int) {
        entries = UnsafeBufferPointer(start: base, count: count)
    }

    deinit {
        free(UnsafeMutableRawPointer(mutating: entries.baseAddress))
    }

    var count: Int { entries.count }

    subscript(index: Int) -> JSONTapeEntry { entries[index] }

    /// Runs `body` with the entries; the tape is kept alive until it returns.
    func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<JSONTapeEntry>) throws -> R) rethrows -> R {
        try withExtendedLifetime(self) { try body(entries) }
    }
}
