import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Checksum {
    /// The digest of the file at `url` by `algorithm`: to check a file already on disk (one an
    /// earlier download placed, say) against the checksum it must have.
    ///
    /// ```swift
    /// let expected = Checksum("sha256=9f86d081884c7d65…")!
    /// if try Checksum.ofFile(at: iso, algorithm: expected.algorithm) == expected { … }
    /// ```
    ///
    /// - Throws: ``HotPotatoError/Code/checksumUnavailable`` where the algorithm has no
    ///   implementation; ``HotPotatoError/Code/fileSystemError`` (with the path) when the file
    ///   cannot be read.
    public static func ofFile(at url: URL, algorithm: Algorithm) throws(HotPotatoError) -> Checksum {
        guard let digest = Digest(algorithm) else { throw FileDigester.unavailable(algorithm) }
        let path = url.path
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw unreadable(path) }
        defer { _ = close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let got = buffer.withUnsafeMutableBytes { space -> Int in
                var got: Int
                repeat { got = read(descriptor, space.baseAddress, space.count) } while got < 0 && errno == EINTR
                return got
            }
            if got < 0 { throw unreadable(path) }
            if got == 0 { break }
            let added = buffer.withUnsafeBytes { digest.update(UnsafeRawBufferPointer(rebasing: $0.prefix(got))) }
            guard added else { throw FileDigester.unavailable(algorithm) }
        }
        guard let checksum = digest.finish() else { throw FileDigester.unavailable(algorithm) }
        return checksum
    }

    private static func unreadable(_ path: String) -> HotPotatoError {
        .file(.fileSystemError, "The file \(path) cannot be read to compute its checksum.", path: path,
              underlying: POSIXFile.currentError())
    }
}
