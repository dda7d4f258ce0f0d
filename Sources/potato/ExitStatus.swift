import Foundation
import HotPotato

/// potato's exit statuses: one per kind of failure, so scripts can tell them apart. Listed in
/// `potato --help` and the README.
enum ExitStatus: Int32, CaseIterable {
    case success = 0
    case failure = 1
    case usage = 2
    case badURL = 3
    case connectionRefused = 4
    case hostNotFound = 5
    case timedOut = 6
    case tlsFailure = 7
    case connectionLost = 8
    case unacceptableStatus = 9
    case unacceptableContentType = 10
    case bodyTooLarge = 11
    case truncatedBody = 12
    case diskFull = 13
    case permissionDenied = 14
    case missingDirectory = 15
    case fileError = 16
    case invalidContent = 17
    case resumeMismatch = 18
    case destinationBusy = 19
    case malformedResponse = 20
    case unreadableUpload = 21
    case checksumMismatch = 22
    case pinnedKeyMismatch = 23
    case interrupted = 130
    case terminated = 143

    /// What the status means, for `--help`.
    var meaning: String {
        switch self {
        case .success: "success"
        case .failure: "any other failure"
        case .usage: "bad options or arguments"
        case .badURL: "the URL is not a valid http or https URL"
        case .connectionRefused: "connection refused"
        case .hostNotFound: "the host name could not be resolved"
        case .timedOut: "timed out"
        case .tlsFailure: "the TLS handshake failed"
        case .connectionLost: "the connection was lost"
        case .unacceptableStatus: "unacceptable status (--accept-status); the server's message is printed"
        case .unacceptableContentType: "unacceptable content type (--accept-type)"
        case .bodyTooLarge: "the body (with --events, an event) is over --max-size"
        case .truncatedBody: "the body ended before its Content-Length"
        case .diskFull: "no space left on the device"
        case .permissionDenied: "no permission to write (or a read-only file system)"
        case .missingDirectory: "the output's directory does not exist"
        case .fileError: "another file error (the output exists, an I/O error …)"
        case .invalidContent: "the body is not valid JSON or text, or has no value at the key path"
        case .resumeMismatch: "--continue: the server's answer does not continue the partial file (discarded; run again)"
        case .destinationBusy: "--continue: another download is writing the same partial file (nothing changed)"
        case .malformedResponse: "the server's response breaks HTTP (a bad Content-Length, an unasked-for 206 …)"
        case .unreadableUpload: "a file to send (-T, -F, -d @FILE, --data-file) cannot be read, or shrank while it was sent"
        case .checksumMismatch: "--checksum: the file's digest is another (nothing was placed; both digests are printed)"
        case .pinnedKeyMismatch: "--pinnedpubkey: the server's public key matches no pin (nothing was sent)"
        case .interrupted: "interrupted (Ctrl-C)"
        case .terminated: "terminated (SIGTERM)"
        }
    }

    /// The status for a failed download, and a short name for the kind of failure.
    static func of(_ error: HotPotatoError) -> (status: ExitStatus, kind: String) {
        switch error.code {
        case .invalidRequest where error.path == nil: return (.badURL, "bad URL")
        case .invalidRequest: return (.unreadableUpload, "cannot read a file to send")
        case .bodyNotReplayable: return (.failure, "cannot send the body again")
        case .bodyFileChanged: return (.unreadableUpload, "a file to send changed")
        case .connectionRefused: return (.connectionRefused, "connection refused")
        case .hostNotFound: return (.hostNotFound, "host not found")
        case .timedOut: return (.timedOut, "timed out")
        case .tlsFailure: return (.tlsFailure, "TLS failure")
        case .pinnedKeyMismatch: return (.pinnedKeyMismatch, "public key not pinned")
        case .connectionLost: return (.connectionLost, "connection lost")
        case .unacceptableStatus: return (.unacceptableStatus, "unacceptable status")
        case .unacceptableContentType, .missingContentType, .malformedContentType:
            return (.unacceptableContentType, "unacceptable content type")
        case .bodyTooLarge: return (.bodyTooLarge, "body too large")
        case .truncatedBody: return (.truncatedBody, "truncated body")
        case .invalidJSON, .keyPathNotFound, .undecodableText, .unsupportedCharset, .emptyBody, .decodingFailed:
            return (.invalidContent, "invalid content")
        case .resumeMismatch: return (.resumeMismatch, "cannot resume")
        case .destinationBusy: return (.destinationBusy, "busy")
        case .malformedResponse: return (.malformedResponse, "malformed response")
        case .checksumMismatch: return (.checksumMismatch, "checksum mismatch")
        case .checksumUnavailable: return (.failure, "no checksum implementation")
        case .destinationExists: return (.fileError, "file exists")
        case .writeFailed, .fileSystemError:
            switch errno(of: error.underlying) {
            case ENOSPC, EDQUOT: return (.diskFull, "disk full")
            case EACCES, EPERM, EROFS: return (.permissionDenied, "permission denied")
            case ENOENT, ENOTDIR: return (.missingDirectory, "missing directory")
            default: return (.fileError, "file error")
            }
        default: return (.failure, "failed")
        }
    }

    /// The `errno` behind a file-system error, when there is one.
    private static func errno(of error: (any Error)?) -> Int32? {
        guard let error else { return nil }
        if let posix = error as? POSIXError { return posix.code.rawValue }
        let nsError = error as NSError
        if nsError.domain == NSPOSIXErrorDomain { return Int32(nsError.code) }
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? any Error { return errno(of: underlying) }
        return nil
    }
}
