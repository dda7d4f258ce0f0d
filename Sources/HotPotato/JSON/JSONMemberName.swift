import Foundation

/// A member name (an object's key) compared by its UTF-8 bytes, as RFC 8259 §8.3 describes:
/// `"é"` (precomposed) and `"e\u0301"` (an `e` and a combining accent) are two different names,
/// as they are in JSON text, and not one as Swift's `String` comparison (canonical equivalence)
/// would have them.
///
/// Every lookup and every duplicate-key check of the parser, the ``JSON`` tree,
/// ``JSONDocument`` and the decoders compares names this way, so that whether two keys are the
/// same never depends on the size of the object or on which API reads it.
struct JSONMemberName: Hashable, Sendable {
    /// The name.
    let string: String

    init(_ string: String) {
        self.string = string
    }

    static func == (lhs: JSONMemberName, rhs: JSONMemberName) -> Bool {
        same(lhs.string, rhs.string)
    }

    func hash(into hasher: inout Hasher) {
        Self.withBytes(string) { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Whether `lhs` and `rhs` are the same name: the same UTF-8 bytes.
    @inline(__always)
    static func same(_ lhs: String, _ rhs: String) -> Bool {
        withBytes(lhs) { left in withBytes(rhs) { right in same(left, right) } }
    }

    /// Whether the UTF-8 bytes `left` and `right` are the same name. Keys are short, so they are
    /// compared here a word at a time rather than by a call to `memcmp`.
    @inline(__always)
    static func same(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = left.count
        guard count == right.count else { return false }
        guard count > 0, let first = left.baseAddress, let second = right.baseAddress else { return true }
        guard count <= 32 else { return memcmp(first, second, count) == 0 }
        let one = UnsafeRawPointer(first)
        let other = UnsafeRawPointer(second)
        var offset = 0
        while offset + 8 <= count {
            if one.loadUnaligned(fromByteOffset: offset, as: UInt64.self) != other.loadUnaligned(fromByteOffset: offset, as: UInt64.self) {
                return false
            }
            offset += 8
        }
        while offset < count {
            if first[offset] != second[offset] { return false }
            offset += 1
        }
        return true
    }

    /// `string`'s UTF-8 bytes to `body`: native strings lend theirs without a copy (and without the
    /// retain and release a copy costs, once per key looked up); others (bridged ones) are made
    /// native first.
    @inline(__always)
    static func withBytes<R>(_ string: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = string.utf8.withContiguousStorageIfAvailable(body) { return result }
        var native = string
        native.makeContiguousUTF8()
        return native.withUTF8(body)
    }
}
