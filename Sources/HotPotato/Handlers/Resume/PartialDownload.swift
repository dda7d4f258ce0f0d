import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The partial state a resumable ``FileWriter`` keeps beside its destination, so that a download
/// interrupted by a failure, a cancellation, a crash or Ctrl-C can be continued:
///
/// - `.<name>.hotpotato-partial` — the body bytes received so far, always a prefix of the body
///   (written in order, never ahead);
/// - `.<name>.hotpotato-partial.json` — the URL it came from and the response's validator
///   (a strong `ETag`, else `Last-Modified`), written once the response is accepted and before
///   its first byte.
struct PartialDownload {
    /// What is recorded about the response the partial bytes came from.
    struct Info: Codable, Equatable {
        var url: String?
        var etag: String?
        var lastModified: String?

        /// The value to send as `If-Range`, when there is one.
        var validator: String? { etag ?? lastModified }
    }

    let dataURL: URL
    let infoURL: URL

    init(destination: URL) {
        let directory = destination.deletingLastPathComponent()
        let name = ".\(destination.lastPathComponent).hotpotato-partial"
        dataURL = directory.appendingPathComponent(name)
        infoURL = directory.appendingPathComponent(name + ".json")
    }

    /// The size of the partial data file, when it is a regular file (never through a link).
    func dataSize() -> Int64? {
        var status = stat()
        guard lstat(dataURL.path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(status.st_size)
    }

    /// The recorded info, when it is there and readable.
    func loadInfo() -> Info? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: infoURL.path),
              attributes[.type] as? FileAttributeType == .typeRegular,
              let size = attributes[.size] as? Int, size <= 64 * 1024,
              let data = FileManager.default.contents(atPath: infoURL.path) else { return nil }
        return try? JSONDecoder().decode(Info.self, from: data)
    }

    /// Records `info`: written beside, then renamed over the old record, so a crash leaves one or
    /// the other, never half of one.
    func saveInfo(_ info: Info) throws {
        let data = try JSONEncoder().encode(info)
        let temporary = infoURL.deletingLastPathComponent()
            .appendingPathComponent(".\(infoURL.lastPathComponent).\(UInt64.random(in: 0...UInt64.max))")
        let descriptor = try POSIXFile.createExclusive(temporary.path)
        do {
            try data.withUnsafeBytes { try POSIXFile.writeAll(descriptor, $0) }
            try POSIXFile.close(descriptor)
            try POSIXFile.rename(temporary.path, to: infoURL.path)
        } catch {
            try? POSIXFile.close(descriptor)
            POSIXFile.remove(temporary.path)
            throw error
        }
    }

    /// Opens the data file to start over: created if missing (0600, never through a link), emptied
    /// if not.
    func openEmptied() throws -> Int32 {
        let descriptor = open(dataURL.path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if descriptor < 0 { throw POSIXFile.currentError() }
        return descriptor
    }

    /// Opens the data file to append to it, checking that it still holds `expectedSize` bytes.
    func openForAppending(expectedSize: Int64) throws -> Int32 {
        let descriptor = open(dataURL.path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC)
        if descriptor < 0 { throw POSIXFile.currentError() }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, Int64(status.st_size) == expectedSize else {
            _ = try? POSIXFile.close(descriptor)
            throw POSIXError(.ESTALE)
        }
        return descriptor
    }

    /// Removes the data file and the record.
    func discard() {
        POSIXFile.remove(dataURL.path)
        POSIXFile.remove(infoURL.path)
    }

    /// The validator of `head` worth recording: a strong `ETag`, else `Last-Modified`.
    static func info(for head: ResponseHead, url: String?) -> Info {
        var info = Info(url: url)
        if let etag = head.headers["ETag"], !etag.hasPrefix("W/") {
            info.etag = etag
        } else if let lastModified = head.headers["Last-Modified"] {
            info.lastModified = lastModified
        }
        return info
    }

    /// Whether `head` carries the validator recorded in `info`.
    static func head(_ head: ResponseHead, matches info: Info) -> Bool {
        if let etag = info.etag { return head.headers["ETag"] == etag }
        if let lastModified = info.lastModified { return head.headers["Last-Modified"] == lastModified }
        return false
    }
}
