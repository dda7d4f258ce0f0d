import Foundation

/// The one seam through which HotPotato parses JSON documents.
///
/// For now Foundation's `JSONDecoder` does the parsing; HotPotato's own incremental parser
/// replaces it here, without changing any caller.
enum JSONBackend {
    /// A parse failure: what went wrong, and where when Foundation says.
    struct Failure: Error {
        var reason: String
        var byteOffset: Int64?
        var underlying: any Error
    }

    /// Parses a whole UTF-8 JSON document (any value at the top level).
    static func parse(_ data: Data) throws(Failure) -> JSON {
        do {
            return try JSONDecoder().decode(JSON.self, from: data)
        } catch {
            throw Failure(reason: describe(error), byteOffset: byteOffset(of: error), underlying: error)
        }
    }

    private static func describe(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            if let underlying = context.underlyingError {
                let nsError = underlying as NSError
                if let detail = nsError.userInfo[NSDebugDescriptionErrorKey] as? String {
                    return detail
                }
            }
            return context.debugDescription
        }
        return "\(error)"
    }

    private static func byteOffset(of error: any Error) -> Int64? {
        guard case DecodingError.dataCorrupted(let context) = error,
              let underlying = context.underlyingError else { return nil }
        let info = (underlying as NSError).userInfo
        if let index = info["NSJSONSerializationErrorIndex"] as? Int { return Int64(index) }
        return nil
    }
}
