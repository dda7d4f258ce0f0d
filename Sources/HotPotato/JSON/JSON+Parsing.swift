import Foundation

extension JSON {
    /// Parses a JSON document held in memory with HotPotato's strict RFC 8259 parser — the one
    /// behind ``JSONParser`` and `.asJSON()`.
    ///
    /// ```swift
    /// let json = try JSON(parsing: data)
    /// ```
    ///
    /// The bytes are read as UTF-8; a leading UTF-8 byte-order mark is ignored.
    ///
    /// Arrays, strings and numbers are made as the tree is built; objects read through the parsed
    /// document (see ``JSON/Object``), so `data` and an index of its tokens (12 bytes each) are
    /// kept while any of them lives. A document without a `{`, or of 4 GiB or more, is built
    /// whole.
    /// - Parameters:
    ///   - data: The document.
    ///   - options: Nesting limit and duplicate-key policy.
    /// - Throws: ``HotPotatoError/Code/invalidJSON`` with the ``HotPotatoError/byteOffset``,
    ///   ``HotPotatoError/line`` and ``HotPotatoError/column`` of the first byte that is not
    ///   JSON, and the bytes as ``HotPotatoError/intermediate``.
    public init(parsing data: Data, options: JSONParsingOptions = JSONParsingOptions()) throws(HotPotatoError) {
        do {
            self = try JSONBackend.parse(data, options: options)
        } catch {
            throw error.hotPotatoError(head: nil, intermediate: .bytes(data))
        }
    }

    /// Parses a JSON document held in a string; see ``init(parsing:options:)-(Data,_)``.
    public init(parsing text: String, options: JSONParsingOptions = JSONParsingOptions()) throws(HotPotatoError) {
        try self.init(parsing: Data(text.utf8), options: options)
    }
}
