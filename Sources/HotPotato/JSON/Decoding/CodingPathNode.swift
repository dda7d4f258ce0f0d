/// A coding path as a chain from the innermost key back to the root, so that going one level
/// deeper costs one small allocation rather than a copy of the whole path.
indirect enum CodingPathNode: Sendable {
    case root
    case key(AnyCodingKey, CodingPathNode)
    case index(Int, CodingPathNode)

    /// The path from the root, as `Decoder.codingPath` gives it.
    var path: [any CodingKey] {
        var keys: [any CodingKey] = []
        var node = self
        while true {
            switch node {
            case .root:
                return keys.reversed()
            case .key(let key, let parent):
                keys.append(key)
                node = parent
            case .index(let index, let parent):
                keys.append(ArrayIndexKey(index))
                node = parent
            }
        }
    }

    /// The path with `key` added, without making a node for it.
    func path(adding key: (any CodingKey)?) -> [any CodingKey] {
        guard let key else { return path }
        return path + [key]
    }

    func appending<Key: CodingKey>(_ key: Key) -> CodingPathNode {
        // A comparison of types rather than a dynamic cast, which costs far more.
        if Key.self == ArrayIndexKey.self { return .index(unsafeBitCast(key, to: ArrayIndexKey.self).index, self) }
        return .key(AnyCodingKey(key), self)
    }

    func appending(index: Int) -> CodingPathNode {
        .index(index, self)
    }
}

/// The key of an array element in a coding path, as `JSONDecoder` writes it (`"Index 3"`, with
/// `intValue` 3); its text is made only when asked for.
struct ArrayIndexKey: CodingKey, Sendable {
    let index: Int

    init(_ index: Int) {
        self.index = index
    }

    init?(stringValue: String) { nil }

    init?(intValue: Int) {
        index = intValue
    }

    var stringValue: String { "Index \(index)" }
    var intValue: Int? { index }
}
