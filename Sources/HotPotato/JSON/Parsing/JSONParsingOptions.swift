/// How HotPotato's JSON parser treats what RFC 8259 leaves open, and the limits that protect it
/// from hostile input.
public struct JSONParsingOptions: Sendable, Hashable {
    /// What to do when an object has the same key twice (RFC 8259 says names *should* be unique).
    public enum DuplicateKeyPolicy: Sendable, Hashable {
        /// Keep the last value, in the first key's place (the default, as most parsers do).
        case useLast
        /// Keep the first value.
        case useFirst
        /// Fail with ``HotPotatoError/Code/invalidJSON``.
        case reject
    }

    /// The deepest nesting of arrays and objects accepted; deeper documents fail with
    /// ``HotPotatoError/Code/invalidJSON`` instead of exhausting the stack. Default 512.
    public var maximumDepth: Int
    /// What to do with a repeated key. Default ``DuplicateKeyPolicy/useLast``.
    public var duplicateKeys: DuplicateKeyPolicy

    /// Creates options.
    public init(maximumDepth: Int = 512, duplicateKeys: DuplicateKeyPolicy = .useLast) {
        self.maximumDepth = max(1, maximumDepth)
        self.duplicateKeys = duplicateKeys
    }
}
