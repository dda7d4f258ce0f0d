import Foundation

/// The one seam through which HotPotato parses whole JSON documents held in memory: HotPotato's
/// own parser (``IncrementalJSONParser``), fed all at once.
enum JSONBackend {
    /// Parses a whole UTF-8 JSON document (any value at the top level), ignoring a UTF-8
    /// byte-order mark (offsets in errors still count it).
    static func parse(_ data: Data, options: JSONParsingOptions = JSONParsingOptions()) throws(JSONSyntaxError) -> JSON {
        var parser = IncrementalJSONParser(mode: .document, options: options)
        do {
            if data.starts(with: [0xEF, 0xBB, 0xBF]) {
                parser.skipLeadingBytes(3)
                try data.dropFirst(3).withUnsafeBytes { try parser.feed($0) }
            } else {
                try data.withUnsafeBytes { try parser.feed($0) }
            }
            return try parser.finish()
        } catch let error as JSONSyntaxError {
            throw error
        } catch {
            throw JSONSyntaxError(reason: "\(error)", offset: 0, line: 1, column: 1)
        }
    }
}
