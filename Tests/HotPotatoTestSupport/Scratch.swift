import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A temporary directory for one test, removed by `remove()`.
struct ScratchDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("hotpotato-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }

    /// The names of the entries in the directory, hidden ones included, sorted.
    func entries() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// The paths under `directory` that this process holds open, found by resolving each entry of
/// /proc/self/fd. Safe while other tests run in parallel, unlike counting descriptors. An
/// anonymous file (`O_TMPFILE`) shows as `<directory>/#<inode> (deleted)`.
func openDescriptors(under directory: URL) -> [String] {
    openFiles(ofProcess: "self", under: directory).map(\.path)
}

/// The files under `directory` that process `process` (a pid, or `"self"`) holds open, with
/// their sizes: named or anonymous.
func openFiles(ofProcess process: String, under directory: URL) -> [(path: String, size: Int64)] {
    let folder = "/proc/\(process)/fd"
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
    let prefix = directory.resolvingSymlinksInPath().path
    return entries.compactMap { entry in
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\(entry)"),
              target.hasPrefix(prefix) else { return nil }
        var status = stat()
        let size = stat("\(folder)/\(entry)", &status) == 0 ? Int64(status.st_size) : 0
        return (target, size)
    }
}
