import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A tiny tmpfs mounted for one test, to produce "no space left" and read-only file systems for
/// real. Needs Linux and root (as on CI); elsewhere the tests that use it are disabled.
struct SmallFileSystem {
    let url: URL

    static var isSupported: Bool {
        #if os(Linux)
        return geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/bin/mount")
        #else
        return false
        #endif
    }

    /// Mounts a tmpfs of `bytes` bytes (rounded up to pages), read-only when asked.
    init(bytes: Int, readOnly: Bool = false) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("hotpotato-fs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let options = "size=\(bytes)" + (readOnly ? ",ro" : "")
        try Self.run("/bin/mount", ["-t", "tmpfs", "-o", options, "tmpfs", url.path])
    }

    func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }

    func entries() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
    }

    func unmount() {
        try? Self.run("/bin/umount", [url.path])
        try? FileManager.default.removeItem(at: url)
    }

    private static func run(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        try ChildProcesses.run(process)
        try ChildProcesses.waitForExit(process)
        guard process.terminationStatus == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSDebugDescriptionErrorKey: "\(tool) \(arguments) failed"])
        }
    }
}
