import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A failure of the benchmark harness itself (not of what it measures).
public struct HarnessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// What a finished child process reports: its exit status, its standard output, and the
/// resources the kernel counted for it.
public struct ChildResult {
    public var status: Int32
    public var output: String
    /// User plus system CPU seconds of the child.
    public var cpuSeconds: Double
    /// The child's peak resident memory, in KiB.
    public var maxRSSKiB: Int
    /// The most threads the child was seen with, when `spawnMeasured` sampled them.
    public var peakThreads: Int? = nil
    /// Whether `spawnMeasured` killed the child at its deadline.
    public var killed = false
}

/// Runs a program to completion with `posix_spawn` and `wait4`, so that its CPU time and peak
/// memory come from the kernel's own accounting.
public func spawnAndWait(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> ChildResult {
    var pipe: [Int32] = [0, 0]
    guard Glibc.pipe(&pipe) == 0 else { throw POSIXError(.EMFILE) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
    posix_spawn_file_actions_addclose(&actions, pipe[0])
    var attributes = cleanSpawnAttributes()
    defer { posix_spawnattr_destroy(&attributes) }

    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var env = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        .map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { env.forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, &env)
    Glibc.close(pipe[1])
    guard spawned == 0 else {
        Glibc.close(pipe[0])
        throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .ENOENT)
    }
    var output = Data()
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = read(pipe[0], &buffer, buffer.count)
        if count <= 0 { break }
        output.append(buffer, count: count)
    }
    Glibc.close(pipe[0])
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
    let cpu = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    return ChildResult(status: exitStatus, output: String(decoding: output, as: UTF8.self), cpuSeconds: cpu, maxRSSKiB: Int(usage.ru_maxrss))
}

/// Finds an executable on the PATH or in the usual system folders.
public func findExecutable(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    for folder in path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/local/sbin", "/sbin", "/usr/bin"] {
        let candidate = folder + "/" + name
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
}

/// Runs a program under `rusage-exec` (beside this executable), which forks it from a small
/// process, so that its peak memory is its own rather than this harness's.
///
/// - Parameters:
///   - sampleThreads: Whether to sample the child's thread count every 100 ms (`peakThreads`).
///   - killAfter: Seconds after which a child still running is killed (`killed`): a hard limit.
public func spawnMeasured(
    _ executable: String, _ arguments: [String], sampleThreads: Bool = false, killAfter: Double? = nil
) throws -> ChildResult {
    let selfPath = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    let helper = URL(fileURLWithPath: selfPath).deletingLastPathComponent().appendingPathComponent("rusage-exec").path
    guard FileManager.default.isExecutableFile(atPath: helper) else {
        throw HarnessError("rusage-exec is missing beside \(selfPath); build the benchmark package's products")
    }
    var options: [String] = sampleThreads ? ["--threads"] : []
    if let killAfter { options += ["--kill-after", String(killAfter)] }
    var result = try spawnAndWait(helper, options + [executable] + arguments)
    guard let line = result.output.split(separator: "\n").last(where: { $0.hasPrefix("RUSAGE ") }) else {
        throw HarnessError("rusage-exec failed: \(result.output)")
    }
    for field in line.split(separator: " ").dropFirst() {
        let parts = field.split(separator: "=", maxSplits: 1)
        guard parts.count == 2 else { continue }
        switch parts[0] {
        case "status": result.status = Int32(parts[1]) ?? -1
        case "maxrss_kib": result.maxRSSKiB = Int(parts[1]) ?? -1
        case "cpu": result.cpuSeconds = Double(parts[1]) ?? .nan
        case "peak_threads": result.peakThreads = Int(parts[1])
        case "killed": result.killed = parts[1] == "1"
        default: break
        }
    }
    return result
}

/// Spawn attributes with an empty signal mask: children would otherwise inherit the blocked mask
/// of this process's threads (and ignore SIGTERM). Destroy them with `posix_spawnattr_destroy`.
public func cleanSpawnAttributes() -> posix_spawnattr_t {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    var empty = sigset_t()
    sigemptyset(&empty)
    posix_spawnattr_setsigmask(&attributes, &empty)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
    return attributes
}
