import Foundation
@testable import HotPotato
@testable import HotPotatoTestSupport

/// One case of the fault soak: what the server does wrong, and what the client does — engine,
/// handler, and the trouble it makes for itself (a cancellation, a second writer, a file in the
/// way, a full disk). Built by ``SoakCaseGenerator`` from a seed and an index.
struct SoakCase: Sendable, CustomStringConvertible {
    /// Which handler reads the body: every handler HotPotato has.
    enum Handler: String, Sendable, CaseIterable {
        case discard, data, string, json, document, decodable, jsonLines, jsonArray
        case outputStream, fileHandle, file, resumableFile
        /// A resumable download over several connections; and the same with the resource's
        /// `/mirror` path as a mirror (served with the same fault).
        case segmentedFile, mirroredFile

        /// The resource that suits the handler.
        var resourceKind: SoakResource.Kind {
            switch self {
            case .string: return .text
            case .json, .document, .decodable, .jsonArray: return .jsonArray
            case .jsonLines: return .jsonLines
            default: return .binary
            }
        }

        var isFile: Bool { self == .file || self == .resumableFile || isSegmented }
        var isSegmented: Bool { self == .segmentedFile || self == .mirroredFile }
        /// Whether it keeps a partial file when it fails.
        var isResumable: Bool { self == .resumableFile || isSegmented }
        var writesToDisk: Bool { isFile || self == .outputStream || self == .fileHandle }
        var isElementStream: Bool { self == .jsonLines || self == .jsonArray }
    }

    /// A partial file left by an earlier resumable download, made before the case runs.
    struct Partial: Sendable {
        /// How many bytes of the resource it holds (1…size).
        let count: Int
        /// Whether its record carries a validator the server no longer has (the server answers
        /// `200` to its `If-Range`).
        let staleValidator: Bool
    }

    let seed: UInt64
    let index: Int
    let engine: Session.Engine
    let handler: Handler
    let resourceSize: Int
    let contentSeed: UInt64
    let fault: SoakFault
    /// Cancel the call this many seconds after it starts.
    let cancelAfter: Double?
    /// Two resumable downloads of the same URL to the same destination at once.
    let concurrent: Bool
    /// A file already at the destination, and whether the download may replace it.
    let preexisting: Bool
    let replaces: Bool
    let partial: Partial?
    /// The case runs in a directory on a small tmpfs that the body does not fit in.
    let diskFull: Bool
    /// A request-level error-body limit, when not the default.
    let errorBodyLimit: Int?

    /// The client's timeout: short only where the server stalls on purpose, so that a loaded
    /// machine never turns another fault into a timeout.
    var timeout: TimeInterval {
        if case .stall = fault { return 0.5 }
        return Self.generousTimeout
    }

    /// The timeout of every call that does not meet a stall on purpose.
    static let generousTimeout: TimeInterval = 15

    var effectiveErrorBodyLimit: Int { errorBodyLimit ?? ErrorBody.defaultLimit }

    /// Whether the case matches a `HOTPOTATO_SOAK_SKIP` entry: every `+`-separated part of it names
    /// the case's fault kind (or a prefix of it), handler, engine, or one of `cancel`,
    /// `twoWriters`, `diskFull`, `exists`.
    func matches(_ filter: String) -> Bool {
        let tags = [handler.rawValue, "\(engine)", cancelAfter == nil ? "" : "cancel", concurrent ? "twoWriters" : "",
                    diskFull ? "diskFull" : "", preexisting ? "exists" : ""]
        return filter.split(separator: "+").allSatisfy { part in
            fault.kind.hasPrefix(part) || tags.contains(String(part))
        }
    }

    var description: String {
        var text = "case \(index): \(engine) \(handler) of \(resourceSize) B, server: \(fault)"
        if let partial { text += ", partial \(partial.count) B\(partial.staleValidator ? " (stale validator)" : "")" }
        if let cancelAfter { text += ", cancel after \(Int(cancelAfter * 1000)) ms" }
        if concurrent { text += ", two writers" }
        if preexisting { text += ", destination exists (\(replaces ? "replace" : "fail"))" }
        if diskFull { text += ", disk full" }
        if let errorBodyLimit { text += ", error body limit \(errorBodyLimit)" }
        return text
    }
}
