/// How the soak server misbehaves for one case. Positions are in thousandths of the body the
/// response would carry, so that the same fault applies to a whole body or to the rest of a range.
enum SoakFault: Sendable, CustomStringConvertible {
    /// A `206` whose `Content-Range` or length is not what was asked for.
    enum BadRange: Sendable {
        /// `bytes S-last/total` with S ≠ the offset asked for.
        case wrongStart(delta: Int)
        /// `bytes P-(last−d)/total`: the range stops short of the end.
        case short(delta: Int)
        /// The right `Content-Range`, then `extra` bytes more than it announced, close-delimited.
        case longBody(extra: Int)
        /// The right `Content-Range`, with a `Content-Length` (and a body) `extra` bytes longer.
        case longLength(extra: Int)
        /// `bytes P-last/(total+d)`.
        case wrongTotal(delta: Int)
    }

    /// A `Content-Length` that is not a single decimal number.
    enum BadLength: String, Sendable, CaseIterable {
        case exponent = "1e3"
        case huge = "99999999999999999999"
        case twoValues = "N and N+7"
        case negative = "-1"
        case plus = "+5"
        /// Two identical `Content-Length` fields: valid (RFC 9110), the body must be accepted.
        case identicalRepeat = "N twice"
    }

    /// Serves the resource honestly: `200`, or `206`/`416` for `Range` with a matching `If-Range`.
    case honest
    /// Declares the whole length, sends `permille`‰ of the body, closes cleanly.
    case truncate(permille: Int)
    /// Sends `permille`‰ of the body, then resets the connection.
    case reset(permille: Int)
    /// Sends `permille`‰ of the body, then sends nothing until the client gives up.
    case stall(permille: Int)
    /// The whole body in `chunk`-byte pieces, `delayMs` apart.
    case drip(chunk: Int, delayMs: Int)
    /// A `206` that does not continue the range asked for; to a request without `Range`, an
    /// unsolicited `206` for the body from `permille`‰ on.
    case badRange(BadRange, permille: Int)
    /// A malformed `Content-Length`; the whole body follows and the connection closes.
    case badContentLength(BadLength)
    /// The body gzip-encoded, whatever `Accept-Encoding` said; ranges count the encoded bytes.
    case gzip
    /// A redirect (301, 302, 303, 307 or 308) to the same resource on this origin or on the
    /// server's other port, which records whether credentials arrived there.
    case redirect(status: Int, crossOrigin: Bool)
    /// A 3xx with a `Location` that must not be followed (300, 305, 306).
    case unfollowedRedirect(status: Int)
    /// To a `Range` request, `416` with `bytes */(offset+delta)` (or no `Content-Range` when delta
    /// is 0); to any other, `416` with the true size.
    case range416(delta: Int)
    /// `status` with a body of `bytes` bytes: a JSON error message padded with spaces, or text.
    case serverError(status: Int, bytes: Int, json: Bool)

    /// The kind's name, for the summary.
    var kind: String {
        switch self {
        case .honest: return "honest"
        case .truncate: return "truncate"
        case .reset: return "reset"
        case .stall: return "stall"
        case .drip: return "drip"
        case .badRange(let bad, _):
            switch bad {
            case .wrongStart: return "206-wrongStart"
            case .short: return "206-short"
            case .longBody: return "206-longBody"
            case .longLength: return "206-longLength"
            case .wrongTotal: return "206-wrongTotal"
            }
        case .badContentLength(let bad): return "contentLength-\(bad)"
        case .gzip: return "gzip"
        case .redirect(_, let crossOrigin): return crossOrigin ? "redirect-crossOrigin" : "redirect-sameOrigin"
        case .unfollowedRedirect: return "redirect-notFollowed"
        case .range416: return "416"
        case .serverError: return "5xx"
        }
    }

    var description: String {
        switch self {
        case .honest, .gzip: return kind
        case .truncate(let at), .reset(let at), .stall(let at): return "\(kind)(at \(at)‰)"
        case .drip(let chunk, let delay): return "drip(\(chunk) B every \(delay) ms)"
        case .badRange(let bad, let at): return "\(kind)(\(bad), unsolicited at \(at)‰)"
        case .badContentLength(let bad): return "Content-Length \(bad.rawValue)"
        case .redirect(let status, let crossOrigin): return "\(status) to \(crossOrigin ? "another" : "the same") origin"
        case .unfollowedRedirect(let status): return "\(status) with Location"
        case .range416(let delta): return delta == 0 ? "416 without Content-Range" : "416 bytes */(offset\(delta > 0 ? "+" : "")\(delta))"
        case .serverError(let status, let bytes, let json): return "\(status) with \(bytes) B of \(json ? "JSON" : "text")"
        }
    }
}
