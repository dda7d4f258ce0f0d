import Foundation

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
/// /proc/self/fd. Safe while other tests run in parallel, unlike counting descriptors.
func openDescriptors(under directory: URL) -> [String] {
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return [] }
    let prefix = directory.resolvingSymlinksInPath().path
    return entries.compactMap { entry in
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)"),
              target.hasPrefix(prefix) else { return nil }
        return target
    }
}
