/// The keys of a ``JSON/Object``, in order, each once, with a key → position table when there
/// are more than ``JSON/Object/indexThreshold``: an object holds one of these and its values.
///
/// Immutable, and shared: the parser gives every object with the same keys in the same order (the
/// records of a document, typically) the same instance, so that a tree of such objects keeps each
/// key once rather than once per object, and freeing an object releases one reference rather than
/// each of its keys. An object whose keys change gets a new instance.
final class JSONObjectKeys: Sendable {
    let keys: [String]
    /// Key → position, for objects with more than ``JSON/Object/indexThreshold`` members.
    let positions: [JSONMemberName: Int]?

    /// The keys of every empty object.
    static let empty = JSONObjectKeys(unique: [], positions: nil)

    /// Keys known to be unique, with their key → position table when the caller has it (only
    /// used when there are more than ``JSON/Object/indexThreshold``).
    init(unique keys: [String], positions: [JSONMemberName: Int]?) {
        self.keys = keys
        if keys.count > JSON.Object.indexThreshold {
            self.positions = positions ?? Self.table(keys)
        } else {
            self.positions = nil
        }
    }

    var count: Int { keys.count }

    /// Where `key` is, compared by its UTF-8 bytes.
    @inline(__always)
    func position(of key: String) -> Int? {
        if let positions { return positions[JSONMemberName(key)] }
        return JSONMemberName.withBytes(key) { wanted in
            keys.firstIndex { JSONMemberName.withBytes($0) { JSONMemberName.same($0, wanted) } }
        }
    }

    /// Whether the key at `index` has the UTF-8 bytes `bytes`.
    @inline(__always)
    func spells(_ index: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        keys.withUnsafeBufferPointer { keys in
            JSONMemberName.withBytes(keys[index]) { JSONMemberName.same($0, bytes) }
        }
    }

    /// These keys and `key` after them (which is not among them).
    func appending(_ key: String) -> JSONObjectKeys {
        var positions = self.positions
        positions?[JSONMemberName(key)] = keys.count
        return JSONObjectKeys(unique: keys + [key], positions: positions)
    }

    /// These keys without the one at `position`.
    func removing(at position: Int) -> JSONObjectKeys {
        var keys = self.keys
        keys.remove(at: position)
        return keys.isEmpty ? .empty : JSONObjectKeys(unique: keys, positions: nil)
    }

    private static func table(_ keys: [String]) -> [JSONMemberName: Int] {
        var positions = [JSONMemberName: Int](minimumCapacity: keys.count)
        for (position, key) in keys.enumerated() { positions[JSONMemberName(key)] = position }
        return positions
    }
}
