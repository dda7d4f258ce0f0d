import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `potato` against servers that lie or attack: sizes that would overflow, text that would steer
/// the terminal, a second download of the same file, and a kill that must leave nothing behind.
@Suite struct PotatoHostileServerTests {
    /// The largest `Content-Length` an engine's own parser survives: FoundationNetworking traps on
    /// values from 2^63 − 512 up (a limitation the README states), libcurl does not.
    static func hugeLength(_ engine: String) -> Int64 {
        engine == "curl" ? Int64.max : Int64.max - 1023
    }

    @Test(arguments: allEngineNames)
    func extremeLengthsNeverCrash(engine: String) async throws {
        let server = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let huge = Self.hugeLength(engine)
        // One attempt each: a retry would meet the same hostile answer (and, continuing, a range
        // it does not fit).
        let common = ["--engine", engine, "--progress", "lines", "--retry", "0"]

        // A plain download declaring 2^63 − 1 bytes that sends ten.
        let plain = HostileResumeTests.raw(server, status: 200, headers: ["Content-Length: \(huge)"], sent: 10)
        var outcome = try await PotatoProcess.run(["get", plain.absoluteString, "-o", scratch.file("a.bin").path] + common)
        #expect(outcome.status == 12, "truncated, not a crash: \(outcome.error)")
        outcome = try await PotatoProcess.run(["get", plain.absoluteString, "-o", scratch.file("b.bin").path, "--max-size", "1M"] + common)
        #expect(outcome.status == 11, "over --max-size at the head: \(outcome.error)")

        // A continuation whose range and length add up to 2^63 − 1 after the partial's 1000 bytes.
        let destination = scratch.file("c.bin")
        let rest = huge - 1000
        let resumed = HostileResumeTests.raw(server, status: 206, headers: [
            "ETag: \"v1\"", "Content-Range: bytes 1000-\(huge - 1)/\(huge)", "Content-Length: \(rest)",
        ], sent: 10, from: 1000)
        try HostileResumeTests.plantPartial(for: destination, url: resumed, size: 1000)
        outcome = try await PotatoProcess.run(["get", resumed.absoluteString, "-o", destination.path, "--continue"] + common)
        #expect(outcome.status == 12, "accepted, then cut short: \(outcome.error)")
        #expect(fileSize(FileWriter.partialFileURL(for: destination)) == 1010)
        try HostileResumeTests.plantPartial(for: destination, url: resumed, size: 1000)
        outcome = try await PotatoProcess.run(
            ["get", resumed.absoluteString, "-o", destination.path, "--continue", "--max-size", "1G"] + common)
        #expect(outcome.status == 11, "\(outcome.error)")

        // A Content-Length that is not the range's: refused, discarded.
        let lying = HostileResumeTests.raw(server, status: 206, headers: [
            "ETag: \"v1\"", "Content-Range: bytes 1000-1999/2000", "Content-Length: \(huge)",
        ], sent: 10, from: 1000)
        let other = scratch.file("d.bin")
        try HostileResumeTests.plantPartial(for: other, url: lying, size: 1000)
        outcome = try await PotatoProcess.run(["get", lying.absoluteString, "-o", other.path, "--continue"] + common)
        #expect(outcome.status == 18, "\(outcome.error)")
        #expect(!FileManager.default.fileExists(atPath: other.path))
    }

    @Test(arguments: allEngineNames)
    func serverTextCannotSteerTheTerminal(engine: String) async throws {
        let server = try await TestServers.fault()
        let escape = "\u{1B}]2;pwned\u{07}\u{1B}[2J"
        let json = #"{"error":"\u001b]2;pwned\u0007\u001b[2J bad token \u202e"}"#
        let url = HostileResumeTests.raw(server, status: 401, headers: [
            "Content-Type: application/json", "Content-Length: \(json.utf8.count)", "X-Evil: \(escape)red",
        ], body: json)
        let outcome = try await PotatoProcess.run(["get", url.absoluteString, "-v", "--engine", engine])
        #expect(outcome.status == 9)
        #expect(outcome.error.contains("the server says:"), "\(outcome.error)")
        #expect(outcome.error.contains("bad token"))
        for forbidden: Unicode.Scalar in ["\u{1B}", "\u{07}", "\u{202E}"] {
            #expect(!outcome.error.unicodeScalars.contains(forbidden), "no \(forbidden.value) reaches the terminal")
        }
        #expect(outcome.error.contains("\\x1B"), "shown escaped instead")
    }

    @Test func aSecondDownloadOfTheSamePartialFileExitsWith19() async throws {
        let server = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("lines.json")
        // The first download holds at 1 000 000 bytes until the gate opens (at most 10 s).
        let gate = UUID().uuidString
        let url = server.url("/jsonlines?count=20000&holdAt=1000000&gate=\(gate)").absoluteString
        let partial = FileWriter.partialFileURL(for: destination)
        let (first, second) = try await offThePool { () -> (PotatoProcess.Outcome, PotatoProcess.Outcome) in
            let first = try PotatoProcess(["get", url, "-o", destination.path, "--continue", "-q"])
            _ = PotatoProcess.waitUntil { (fileSize(partial) ?? 0) >= 512 * 1024 }
            let second = try PotatoProcess(["get", url, "-o", destination.path, "--continue", "--progress", "none"]).wait()
            FaultServer.openGate(gate)
            return (try first.wait(), second)
        }
        #expect(second.status == 19, "\(second.error)")
        #expect(second.error.contains("Another download"))
        #expect(!second.error.contains("resuming after"), "it resumed nothing: \(second.error)")
        #expect(first.status == 0, "\(first.error)")
        #expect(try Data(contentsOf: destination) == FaultServer.jsonLines(count: 20000))
        #expect(try scratch.entries() == ["lines.json"])
    }

    @Test(.needsNginx) func aKilledDownloadLeavesNothingBehind() async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let outcome = try await PotatoCommandTests.interrupt(
            "\(nginx.baseURL)/slow/medium.bin?rate=2m", to: scratch.file("m.bin"), after: 256 * 1024, with: SIGKILL)
        #expect(outcome.status != 0)
        #if os(Linux)
        #expect(try scratch.entries().isEmpty, "an anonymous file goes with the process")
        #endif
    }

    @Test(.needsNginx) func withoutAnonymousFilesStaleTemporaryFilesAreRemovedLiveOnesKept() async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("small.json")
        // What a killed download leaves where there are no anonymous files, and one still held.
        let stale = scratch.file(".small.json.hotpotato-stale1.part")
        let live = scratch.file(".small.json.hotpotato-live1.part")
        let unrelated = scratch.file(".other.json.hotpotato-stale2.part")
        for file in [stale, live, unrelated] { try Data("old".utf8).write(to: file) }
        let held = open(live.path, O_RDONLY)
        defer { close(held) }
        #expect(flock(held, LOCK_EX | LOCK_NB) == 0)
        let outcome = try await offThePool {
            try PotatoProcess(["get", "\(nginx.baseURL)/small.json", "-o", destination.path, "-q"],
                              environment: ["HOTPOTATO_NO_ANONYMOUS_FILES": "1"]).wait()
        }
        #expect(outcome.status == 0, "\(outcome.error)")
        #expect(try sameContents(destination, nginx.root.appendingPathComponent("small.json")))
        #expect(try scratch.entries() == [".other.json.hotpotato-stale2.part", ".small.json.hotpotato-live1.part", "small.json"])
    }
}
