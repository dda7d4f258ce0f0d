/// Where the next key of an object is most likely to be, for the keyed containers of one
/// decoding: types decode their keys in the order they declare them, which is usually the
/// document's, so the member after the last one found is tried first.
///
/// A fixed table of hints rather than a field of each container, which `KeyedDecodingContainer`
/// copies for every call and which must then hold nothing that is retained. An object's hint is
/// in the slot its entry picks; two objects picking the same slot only cost a search from the
/// object's first key.
final class JSONTapeKeyHints {
    struct Hint {
        /// The object the hint is for.
        var object: Int
        /// The entry of the key to try first (or the entry after the object's last).
        var key: Int
    }

    static let slotCount = 64

    let slots: UnsafeMutablePointer<Hint>

    init() {
        slots = .allocate(capacity: Self.slotCount)
        slots.initialize(repeating: Hint(object: -1, key: 0), count: Self.slotCount)
    }

    deinit {
        slots.deallocate()
    }

    /// The slot of the object at `object`.
    @inline(__always)
    func slot(for object: Int) -> UnsafeMutablePointer<Hint> {
        Self.slot(for: object, in: slots)
    }

    /// The slot of the object at `object` among `slots` (a table's ``slots``).
    @inline(__always)
    static func slot(for object: Int, in slots: UnsafeMutablePointer<Hint>) -> UnsafeMutablePointer<Hint> {
        slots + (object & (slotCount - 1))
    }
}
