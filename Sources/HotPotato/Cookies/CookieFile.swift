import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading and writing a cookie file with descriptors that are close-on-exec, so that a child
/// process started meanwhile never inherits one.
enum CookieFile {
    /// The bytes of the file at `path` (a regular file, a FIFO, `/dev/stdin` …), at most `limit`.
    static func read(_ path: String, limit: Int) throws(HotPotatoError) -> Data {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let error = POSIXFile.currentError()
            throw .file(.fileSystemError, "The cookie file \(path) cannot be read: \(error.code).", path: path, underlying: error)
        }
        defer { try? POSIXFile.close(descriptor) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                let error = POSIXFile.currentError()
                throw .file(.fileSystemError, "Reading the cookie file \(path) failed: \(error.code).", path: path, underlying: error)
            }
            if count == 0 { return data }
            guard data.count + count <= limit else {
                throw .file(.fileSystemError, "The cookie file \(path) is larger than \(limit) bytes.", path: path)
            }
            data.append(contentsOf: buffer[..<count])
        }
    }

    /// Writes `data` as the whole of the file at `url`, atomically: into a new private file
    /// beside it (0600, close-on-exec, never through a link), flushed, then renamed over `url`.
    static func writeAtomically(_ data: Data, to url: URL) throws(HotPotatoError) {
        let directory = url.deletingLastPathComponent()
        var temporary = ""
        var descriptor: Int32 = -1
        var lastError: (any Error)?
        for _ in 0..<16 {
            let random = String(UInt64.random(in: 0...UInt64.max), radix: 36)
            temporary = directory.appendingPathComponent(
                AuxiliaryFileName.name(for: url.lastPathComponent, suffix: ".hotpotato-\(random).cookies")).path
            do {
                descriptor = try POSIXFile.createExclusive(temporary)
                break
            } catch let error as POSIXError where error.code == .EEXIST {
                lastError = error
            } catch {
                lastError = error
                break
            }
        }
        guard descriptor >= 0 else {
            throw .file(
                .fileSystemError, "Writing the cookie file \(url.path) failed: \(lastError.map { "\($0)" } ?? "no temporary file").",
                path: url.path, underlying: lastError)
        }
        do {
            try data.withUnsafeBytes { try POSIXFile.writeAll(descriptor, $0) }
            _ = fsync(descriptor)
            try POSIXFile.close(descriptor)
            descriptor = -1
            try POSIXFile.rename(temporary, to: url.path)
        } catch {
            if descriptor >= 0 { try? POSIXFile.close(descriptor) }
            POSIXFile.remove(temporary)
            throw .file(.fileSystemError, "Writing the cookie file \(url.path) failed: \(error).", path: url.path, underlying: error)
        }
    }
}

/// `read(2)`, named apart from the `read` methods around it.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
