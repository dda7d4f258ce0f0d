import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Only if changed (``FileWriter/onlyIfChanged``) and the server's modification time
/// (``FileWriter/keepsRemoteTime``): the validator saved with a placed file, the conditional
/// request made from it, and the `304` that leaves the file as it is.
extension FileWriter {
    /// The extended attribute a placed file's `ETag` is kept in (wget2 keeps its metadata so too):
    /// no file beside it.
    static let etagAttribute = "user.hotpotato.etag"
    /// The longest `ETag` kept or sent back.
    static let etagLimit = 512

    /// For ``onlyIfChanged``, when a file is at the destination and the whole resource is asked
    /// for: makes the request conditional — `If-None-Match` with the `ETag` saved with the file,
    /// or without one `If-Modified-Since` with its modification time — unless the caller set
    /// either. Never both: RFC 9110 has a server ignore `If-Modified-Since` beside
    /// `If-None-Match`, but nginx answers `304` only when both match, and its default match of a
    /// date is exact, which a file's own time rarely is.
    func adaptConditional(_ request: inout URLRequest) {
        guard onlyIfChanged, case .whole = requested, (request.httpMethod ?? "GET").uppercased() == "GET",
              request.value(forHTTPHeaderField: "If-None-Match") == nil,
              request.value(forHTTPHeaderField: "If-Modified-Since") == nil
        else { return }
        var status = stat()
        guard stat(destination.path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return }
        if let etag = Self.savedETag(atPath: destination.path) {
            request.setValue(etag, forHTTPHeaderField: "If-None-Match")
            sentConditional = true
            return
        }
        #if canImport(Darwin)
        let seconds = TimeInterval(status.st_mtimespec.tv_sec)
        #else
        let seconds = TimeInterval(status.st_mtim.tv_sec)
        #endif
        request.setValue(HTTPDate.format(Date(timeIntervalSince1970: seconds)), forHTTPHeaderField: "If-Modified-Since")
        sentConditional = true
    }

    /// Whether `head` is the `304` that says the file at the destination is current.
    func isNotModified(_ head: ResponseHead) -> Bool {
        sentConditional && head.status == 304
    }

    /// Before placing: saves the response's `ETag` with the file (where the file system keeps
    /// extended attributes; nothing otherwise), and with ``keepsRemoteTime`` sets its modification
    /// time from `Last-Modified`. Neither fails the download.
    func stampBeforePlacing(_ fd: Int32) {
        guard let head else { return }
        if onlyIfChanged, let etag = head.headers["ETag"], Self.isSendable(etag) {
            ExtendedAttributes.set(Self.etagAttribute, to: Array(etag.utf8), on: fd)
        }
        if keepsRemoteTime, let text = head.headers["Last-Modified"], let date = HTTPDate.parse(text) {
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            var times = [now, timespec(tv_sec: Int(date.timeIntervalSince1970), tv_nsec: 0)]
            _ = futimens(fd, &times)
        }
    }

    /// The `ETag` saved with the file at `path`, if one that may be sent back is.
    static func savedETag(atPath path: String) -> String? {
        guard let bytes = ExtendedAttributes.value(etagAttribute, atPath: path, limit: etagLimit) else { return nil }
        let etag = String(decoding: bytes, as: UTF8.self)
        return isSendable(etag) ? etag : nil
    }

    /// An `ETag` fit to keep and send back: short, visible ASCII and spaces only (what is read
    /// from a file's attributes goes into a request header: no line breaks, nothing else).
    static func isSendable(_ etag: String) -> Bool {
        let bytes = etag.utf8
        return !bytes.isEmpty && bytes.count <= etagLimit && bytes.allSatisfy { $0 == 0x20 || (0x21...0x7E).contains($0) }
    }
}
