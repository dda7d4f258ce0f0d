import Foundation

/// The one seam through which HotPotato parses whole JSON documents held in memory: HotPotato's
/// own parser (``IncrementalJSONParser``), fed all at once.
enum JSONBackend {
    /// Parses a whole UTF-8 JSON document (any value at the top level).
    static func parse(_ data: Data, options: JSONParsingOptions = JSONParsingOptions()) throws(JSONSyntaxError) -> JSON {
        var parser = IncrementalJSONParser(mode: .document, options: options)
        do {
            try data.withUnsafeBytes { try parser.feed($0) }
            return try parser.finish()
        } catch let error as JSONSyntaxError {
            throw error
        } catch {
            throw JSONSyntaxError(reason: "\(error)", offset: 0, line: 1, column: 1)
        }
    }
}
