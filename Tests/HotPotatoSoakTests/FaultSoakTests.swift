import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// The seeded randomized fault soak: each case makes the soak server misbehave in one way at a
/// random byte (truncation, reset, stall, drip, a wrong `206`, a malformed `Content-Length`, gzip
/// nobody asked for, redirects within and across origins, `416`s, `5xx`s with megabytes of body)
/// while the client picks an engine and a handler — every handler — and sometimes cancels, runs two
/// resumable writers at once, finds a file in the way or a full disk. ``SoakOracle`` checks every
/// case: the content or the right error, the destination, leftovers, descriptors, credentials.
///
/// Run it (the short soak CI runs, 500 cases; the seed is printed on standard error):
///
///     swift build --build-tests && swift test --skip-build --filter FaultSoak
///
/// The long soak, 10 000 cases (about 15–20 minutes here):
///
///     HOTPOTATO_SOAK_CASES=10000 swift test --skip-build --filter FaultSoak
///
/// Environment: `HOTPOTATO_SOAK_SEED` (default: random, printed) reruns a seed's case list exactly;
/// `HOTPOTATO_SOAK_CASES` (default 500) sets how many; `HOTPOTATO_SOAK_CASE=i` runs only case i
/// of the seed, printing it; `HOTPOTATO_SOAK_VERBOSE=1` prints every case before it runs (to find
/// the case that crashed a run); `HOTPOTATO_SOAK_SKIP=a,b+c` leaves out the cases that
/// match a, or both b and c (a debugging aid, for when one known failure drowns the rest): fault
/// kinds as the summary names them (a prefix is enough: `206`, `contentLength`), handlers
/// (`jsonLines`), engines (`curl`, `URLSession`), `cancel`, `twoWriters`, `diskFull`, `exists`. Each failure's message carries
/// the command that reruns its case. The disk-full cases need Linux and root (a tmpfs is mounted),
/// so a seed's case list depends on that too, and on the engines available.
@Suite struct FaultSoakTests {
    /// Resident memory may grow this much over the run before it counts as runaway buffering.
    static let memoryAllowance = 300 * 1024 * 1024
    /// Whether the soak is the only suite in this test process (`--filter FaultSoak…`, as
    /// `Tests/run-all.sh` and the documented commands run it, or `--filter HotPotatoSoakTests`,
    /// the target that holds only the soak). Only then is the process's resident
    /// memory the soak's own: in a plain `swift test`, the suites beside it (256 MiB downloads
    /// through slow handlers) share the process, so the memory bound is not checked there; every
    /// other check is.
    static let runsAlone: Bool = {
        let arguments = CommandLine.arguments
        guard let index = arguments.firstIndex(of: "--filter"), index + 1 < arguments.count else { return false }
        let filter = arguments[index + 1]
        return (filter.contains("FaultSoak") || filter.contains("HotPotatoSoakTests")) && !filter.contains("|")
    }()

    /// A case that has not finished after this long has hung (a case takes well under 10 s: the
    /// longest waits are a 1.5 s gate and a 0.5 s timeout, and every other timeout is 15 s).
    static let caseDeadline: TimeInterval = 60

    @Test func faultSoak() async throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["HOTPOTATO_SOAK_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        let count = environment["HOTPOTATO_SOAK_CASES"].flatMap { Int($0) } ?? 500
        let only = environment["HOTPOTATO_SOAK_CASE"].flatMap { Int($0) }
        let verbose = environment["HOTPOTATO_SOAK_VERBOSE"] == "1" || only != nil
        let skipped = (environment["HOTPOTATO_SOAK_SKIP"] ?? "").split(separator: ",").map(String.init)
        let indices = only.map { [$0] } ?? Array(0..<count)
        Self.say("FaultSoak: seed \(seed), \(only.map { "case \($0)" } ?? "\(count) cases") (rerun: HOTPOTATO_SOAK_SEED=\(seed) swift test --skip-build --filter FaultSoak)")

        let server = try SoakServer()
        var sessions: [Session.Engine: Session] = [:]
        for engine in allEngines { sessions[engine] = testSession(engine: engine, timeout: 15) }
        let runner = SoakRunner(server: server, sessions: sessions)
        let smallFileSystem = SmallFileSystem.isSupported ? try SmallFileSystem(bytes: SoakCaseGenerator.smallFileSystemSize) : nil
        defer { smallFileSystem?.unmount() }
        let startMemory = Self.residentMemory()
        var peakMemory = startMemory

        var faults: [String: Int] = [:]
        var handlers: [String: Int] = [:]
        var classes: [String: Int] = [:]
        var outcomes: [String: Int] = [:]
        var failedCases = 0
        var ran = 0
        let start = Date()
        for index in indices {
            let soakCase = SoakCaseGenerator.makeCase(
                seed: seed, index: index, engines: allEngines, diskFullSupported: smallFileSystem != nil)
            if skipped.contains(where: { soakCase.matches($0) }) { continue }
            if verbose { Self.say("FaultSoak: \(soakCase)") }
            ran += 1
            faults[soakCase.fault.kind, default: 0] += 1
            handlers[soakCase.handler.rawValue, default: 0] += 1
            let rerun = "HOTPOTATO_SOAK_SEED=\(seed) HOTPOTATO_SOAK_CASE=\(index) swift test --skip-build --filter FaultSoak"
            guard let (found, results) = try await Self.withDeadline(seconds: Self.caseDeadline, {
                try await Self.runCase(soakCase, runner: runner, server: server, smallFileSystem: smallFileSystem)
            }) else {
                // A hung call may hold one of the few cooperative threads for good: stop here.
                failedCases += 1
                classes["[hang] [\(soakCase.engine)] \(soakCase.handler)", default: 0] += 1
                let message = "FaultSoak \(soakCase)\n  [hang] the case did not finish within \(Int(Self.caseDeadline)) s;"
                    + " the soak stops here (a deadlock or a call that never completes)\n  rerun: \(rerun)"
                Self.say(message)
                Issue.record(Comment(rawValue: message))
                break
            }
            var problems = found
            for result in results {
                switch result {
                case .success: outcomes["success", default: 0] += 1
                case .failure(let error): outcomes[".\(error.code)", default: 0] += 1
                }
            }

            let memory = Self.residentMemory()
            peakMemory = max(peakMemory, memory)
            if Self.runsAlone, memory > startMemory + Self.memoryAllowance {
                problems.append("[memory] resident memory grew from \(startMemory >> 20) MiB to \(memory >> 20) MiB")
            }
            guard !problems.isEmpty else { continue }
            failedCases += 1
            for problem in problems {
                let tag = problem.prefix { $0 != ":" }
                classes[String(tag) + " [\(soakCase.engine)]", default: 0] += 1
            }
            let message = "FaultSoak \(soakCase)\n  " + problems.joined(separator: "\n  ") + "\n  rerun: \(rerun)"
            if verbose || failedCases <= 200 { Self.say(message) }
            Issue.record(Comment(rawValue: message))
        }
        let elapsed = Date().timeIntervalSince(start)
        Self.say("FaultSoak summary: seed \(seed), \(ran) cases in \(String(format: "%.1f", elapsed)) s"
            + " (\(String(format: "%.0f", ran == 0 ? 0 : elapsed * 1000 / Double(ran))) ms a case), failures: \(failedCases)"
            + ", memory \(startMemory >> 20) → peak \(peakMemory >> 20) MiB"
            + (Self.runsAlone ? "" : " (not checked: other suites share this process)"))
        Self.say("FaultSoak faults: " + faults.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        Self.say("FaultSoak outcomes: " + outcomes.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        Self.say("FaultSoak handlers: " + handlers.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        if !classes.isEmpty {
            Self.say("FaultSoak failure classes: " + classes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: "; "))
        }
    }

    /// Runs one case in a directory of its own, waits for it to settle, checks it, and removes the
    /// directory; returns the violations and the calls' results.
    static func runCase(
        _ soakCase: SoakCase, runner: SoakRunner, server: SoakServer, smallFileSystem: SmallFileSystem?
    ) async throws -> ([String], [Result<SoakRunner.Content, HotPotatoError>]) {
        let resource = SoakResource(kind: soakCase.handler.resourceKind, size: soakCase.resourceSize, seed: soakCase.contentSeed)
        let directory: URL
        if soakCase.diskFull, let smallFileSystem {
            directory = smallFileSystem.file("case-\(soakCase.index)-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } else {
            directory = try ScratchDirectory().url
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try await runner.run(soakCase, resource: resource, in: directory)
        defer { server.unregister(run.url) }
        let (entries, descriptors) = await settle(run)
        var problems = SoakOracle.violations(of: run, entries: entries, descriptors: descriptors)

        // A resumable download that failed is retried against an honest server, as a user would:
        // whatever the fault left must lead to the resource.
        let succeeded = run.outcomes.contains { if case .success = $0.result { return true } else { return false } }
        if problems.isEmpty, soakCase.handler.isResumable, !succeeded, !soakCase.diskFull,
           !(soakCase.preexisting && !soakCase.replaces) {
            let retry = await runner.followUp(run)
            if case .failure(let error) = retry.result {
                problems.append("[follow-up] \(soakCase.fault.kind): the honest retry failed with .\(error.code): \(error.reason.prefix(300))")
            } else if FileManager.default.contents(atPath: run.destination.path) != resource.body {
                problems.append("[follow-up] \(soakCase.fault.kind): the honest retry placed a file that is not the resource")
            }
            let (after, open) = await settle(run)
            let left = after.filter { $0 != run.destination.lastPathComponent }
            if !left.isEmpty { problems.append("[follow-up] \(soakCase.fault.kind): the honest retry left \(left.joined(separator: ", "))") }
            if !open.isEmpty { problems.append("[follow-up] \(soakCase.fault.kind): still open after the retry: \(open.joined(separator: ", "))") }
        }
        return (problems, run.outcomes.map(\.result))
    }

    /// Runs `work`, or gives up waiting for it after `seconds` and returns nil (the work is left
    /// to itself: it is hung).
    static func withDeadline<Value: Sendable>(
        seconds: TimeInterval, _ work: @escaping @Sendable () async throws -> Value
    ) async throws -> Value? {
        let waiter = Locked<CheckedContinuation<Result<Value, any Error>?, Never>?>(nil)
        @Sendable func resume(_ result: Result<Value, any Error>?) {
            waiter.withLock { continuation in
                continuation?.resume(returning: result)
                continuation = nil
            }
        }
        let result = await withCheckedContinuation { continuation in
            waiter.withLock { $0 = continuation }
            Task {
                do {
                    resume(.success(try await work()))
                } catch {
                    resume(.failure(error))
                }
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { resume(nil) }
        }
        return try result?.get()
    }

    /// The directory's entries and the descriptors open under it, once nothing is open there any
    /// more and no temporary file remains (or after 3 s: what is left then is a violation).
    static func settle(_ run: SoakRunner.Run) async -> ([String], [String]) {
        let deadline = Date().addingTimeInterval(3)
        while true {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: run.directory.path).sorted()) ?? []
            let descriptors = openDescriptors(under: run.directory)
            let temporary = entries.contains { $0.hasSuffix(".part") || $0.contains(".json.") }
            if (descriptors.isEmpty && !temporary) || Date() > deadline { return (entries, descriptors) }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
    }

    /// The process's resident memory, in bytes (Linux; 0 elsewhere).
    static func residentMemory() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    static func say(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
