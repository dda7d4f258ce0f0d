import BenchmarkFixtures
import Foundation
import HotPotato
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Runs one case in this (child) process and prints `RESULT bytes=… seconds=… cpu=… requests=…`.
///
/// The wall time and CPU time cover the transfer only, not the process start; the parent reads
/// the peak resident memory from the kernel when the child exits.
enum CaseRunner {
    /// The case's session, kept until the process exits: closing its connections is not part of
    /// the transfer's time.
    nonisolated(unsafe) private static var keptSession: Session?
    /// Removes the file at `path` if it is a regular file: a case run by hand with `/dev/null` as
    /// its destination, as root, once removed the null device (and the next `> /dev/null` made a
    /// regular file of it).
    static func removeRegularFile(_ path: String) {
        var status = stat()
        if lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG { unlink(path) }
    }

    /// For the `filesha256` job: the served file's SHA-256, computed before the clock starts.
    nonisolated(unsafe) private static var expectedChecksum: Checksum?

    /// The SHA-256 of the file the orchestrator names in `HOTPOTATO_E2E_FIXTURE`, by `sha256sum`.
    private static func fixtureChecksum() throws -> Checksum {
        guard let path = ProcessInfo.processInfo.environment["HOTPOTATO_E2E_FIXTURE"] else {
            throw HarnessError("HOTPOTATO_E2E_FIXTURE is not set")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let hex = String(decoding: output, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
        guard process.terminationStatus == 0, let checksum = Checksum(.sha256, hex: hex) else {
            throw HarnessError("sha256sum \(path) failed")
        }
        return checksum
    }

    static func run(_ name: String, url: String, destination: String, count: Int) async throws {
        guard let url = URL(string: url) else { throw HarnessError("bad URL \(url)") }
        let destinationURL = URL(fileURLWithPath: destination)
        Self.removeRegularFile(destination)
        // Outside the timed region: the checksum a verified download must match.
        if name.hasSuffix("sha256") { expectedChecksum = try fixtureChecksum() }
        let cpuBefore = cpuSeconds()
        let start = DispatchTime.now().uptimeNanoseconds
        let (bytes, requests) = try await perform(name, url: url, destination: destinationURL, count: count)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let cpu = cpuSeconds() - cpuBefore
        // Kept when the harness checks it (it removes it then).
        if ProcessInfo.processInfo.environment["HOTPOTATO_E2E_KEEP"] != "1" { Self.removeRegularFile(destination) }
        print("RESULT bytes=\(bytes) seconds=\(seconds) cpu=\(cpu) requests=\(requests)" + (firstByte.map { " ttfb=\($0)" } ?? ""))
    }

    /// The time to first byte of a single-request case (`TransferPhases.firstByte`, seconds from
    /// the start of the request, as curl's `time_starttransfer`), when the engine measured it.
    nonisolated(unsafe) private static var firstByte: Double?

    /// Notes `response`'s time to first byte and hands back its content.
    @discardableResult
    private static func recorded<Content>(_ response: Response<Content>) -> Content {
        firstByte = response.timings.phases?.firstByte
        return response.content
    }

    private static func perform(_ name: String, url: URL, destination: URL, count: Int) async throws -> (Int64, Int) {
        let parts = name.split(separator: "-", maxSplits: 2).map(String.init)
        if parts.count == 3, parts[0] == "hp" {
            let engine: Session.Engine = parts[1] == "curl" ? .curl : .urlSession
            return try await hotPotato(parts[2], engine: engine, url: url, destination: destination, count: count)
        }
        if parts.count >= 2, parts[0] == "urlsession" {
            return try await RawURLSession.run(name.dropFirst("urlsession-".count).description, url: url, destination: destination, count: count)
        }
        throw HarnessError("unknown case \(name)")
    }

    private static func hotPotato(_ job: String, engine: Session.Engine, url: URL, destination: URL, count: Int) async throws -> (Int64, Int) {
        var configuration = Session.Configuration()
        configuration.requestTimeout = 120
        // An experiment's knob, never set by the plan: how many download lanes the libcurl
        // engine runs (`Session.Configuration.downloadLanes`, default 4).
        if let lanes = ProcessInfo.processInfo.environment["HOTPOTATO_E2E_DOWNLOAD_LANES"].flatMap(Int.init) {
            configuration.downloadLanes = lanes
        }
        if job.hasSuffix("burst") {
            // Over HTTPS, with the default limits: at most `maximumConnectionsPerHost` (8)
            // HTTP/1.1 connections, the rest waiting in line, as AsyncHTTPClient keeps to its own.
            configuration.httpVersionPolicy = job == "h1burst" ? .http1_1Only : .automatic
            if let authority = ProcessInfo.processInfo.environment["HOTPOTATO_E2E_CA"] {
                configuration.certificateAuthorities = URL(fileURLWithPath: authority)
            }
        }
        let session = Session(configuration: configuration, engine: engine)
        // Released after the clock stops, as the raw URLSession cases' shared session is never
        // released and curl's `time_total` ends before its clean-up.
        keptSession = session
        let request = session.get(url)
        switch job {
        case "file":
            let file = recorded(try await request.downloadToFile(at: destination, existingFilePolicy: .replace).response())
            // A plain stat: `FileManager.attributesOfItem` resolves the owner's and group's names
            // through NSS (about a millisecond the first time), harness work inside the timed
            // region that curl's `time_total` has no counterpart of.
            var status = stat()
            guard stat(file.path, &status) == 0 else { throw HarnessError("no file at \(file.path)") }
            return (Int64(status.st_size), 1)
        case "segments8":
            // The file over up to eight connections, when the server allows ranges.
            let file = recorded(try await request.downloadToFile(at: destination, existingFilePolicy: .replace, connections: 8).response())
            var status = stat()
            guard stat(file.path, &status) == 0 else { throw HarnessError("no file at \(file.path)") }
            return (Int64(status.st_size), 1)
        case "filesha256":
            let file = recorded(try await request.downloadToFile(at: destination, existingFilePolicy: .replace, checksum: expectedChecksum).response())
            var status = stat()
            guard stat(file.path, &status) == 0 else { throw HarnessError("no file at \(file.path)") }
            return (Int64(status.st_size), 1)
        case "stream":
            guard let stream = OutputStream(toFileAtPath: destination.path, append: false) else { throw HarnessError("no stream") }
            return (try await request.downloadToStream(stream).content, 1)
        case "data":
            return (Int64(recorded(try await request.asData(maximumBodySize: .max).response()).count), 1)
        case "json":
            let response = try await request.asJSON(maximumBodySize: .max).response()
            recorded(response)
            guard response.content.arrayValue?.isEmpty == false else { throw HarnessError("empty JSON") }
            return (response.head.contentLength ?? 0, 1)
        case "discard":
            let response = try await request.discardResponseContent().response()
            recorded(response)
            return (response.head.contentLength ?? 0, 1)
        case "slow":
            return (try await request.handled(by: SlowDiscarder()).content, 1)
        case "parallel":
            let total = try await withThrowingTaskGroup(of: Int64.self) { group in
                for _ in 0..<count {
                    group.addTask { try await session.get(url).handled(by: CountingDiscarder()).content }
                }
                return try await group.reduce(0, +)
            }
            return (total, count)
        case "small":
            // One request after another, each body parsed as `.asJSON()` gives it.
            var bytes: Int64 = 0
            for _ in 0..<count { bytes += try await smallJSON(session.get(url)) }
            return (bytes, count)
        case let job where job.hasPrefix("small") && Int(job.dropFirst("small".count)) != nil:
            // `small16`, `small64`: that many tasks, each making its share of requests in turn.
            let width = Int(job.dropFirst("small".count)) ?? 1
            let total = try await withThrowingTaskGroup(of: Int64.self) { group in
                for _ in 0..<width {
                    group.addTask {
                        var bytes: Int64 = 0
                        for _ in 0..<(count / width) { bytes += try await smallJSON(session.get(url)) }
                        return bytes
                    }
                }
                return try await group.reduce(0, +)
            }
            return (total, count / width * width)
        case "h2burst", "h1burst":
            // `count` requests at once, each body parsed as `.asJSON()` gives it; every response
            // must have come in the version the case is about.
            let version: HTTPVersion = job == "h2burst" ? .http2 : .http1_1
            let total = try await withThrowingTaskGroup(of: Int64.self) { group in
                for _ in 0..<count { group.addTask { try await smallJSON(session.get(url), version: version) } }
                return try await group.reduce(0, +)
            }
            return (total, count)
        default:
            throw HarnessError("unknown HotPotato job \(job)")
        }
    }

    /// Fetches a small JSON document through `.asJSON()`, in `version` of HTTP when given; its
    /// size.
    private static func smallJSON<Handler>(_ request: Request<Handler>, version: HTTPVersion? = nil) async throws -> Int64 {
        let response = try await request.asJSON().response()
        guard response.content.arrayValue?.isEmpty == false else { throw HarnessError("empty JSON") }
        if let version, response.httpVersion != version {
            throw HarnessError("expected \(version), got \(response.httpVersion.map { "\($0)" } ?? "an unknown version")")
        }
        return response.head.contentLength ?? 0
    }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }
}

/// Discards the body, spending 100 µs per 16 KiB like a slow consumer; its content is the byte
/// count.
final class SlowDiscarder: SelectiveDiscarder<Int64> {
    private var bytes: Int64 = 0

    init() { super.init() }

    override func receive(_ chunk: Data) throws {
        bytes += Int64(chunk.count)
        let end = DispatchTime.now().uptimeNanoseconds + UInt64(100_000 * chunk.count / 16_384)
        while DispatchTime.now().uptimeNanoseconds < end {}
    }

    override func finish() throws -> Int64 { bytes }
}

/// Discards the body; its content is the byte count.
final class CountingDiscarder: SelectiveDiscarder<Int64> {
    private var bytes: Int64 = 0

    init() { super.init() }

    override func receive(_ chunk: Data) throws { bytes += Int64(chunk.count) }

    override func finish() throws -> Int64 { bytes }
}
