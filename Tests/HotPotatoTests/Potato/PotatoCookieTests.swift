import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// potato's cookies against httpbin, on both engines: `-c FILE` writes the jar (even when the
/// call fails), `-b FILE` reads it without writing it, `-b name=value` sends a cookie, and the
/// old `-c` that meant `--continue` still does where it cannot name a file.
@Suite(.needsHTTPBin) struct PotatoCookieTests {
    static let engines = allEngineNames

    private func cookies(in outcome: PotatoProcess.Outcome) throws -> [String: String] {
        let json = try JSON(parsing: outcome.output)
        return try json.decode([String: String].self, atKeyPath: "cookies")
    }

    @Test(arguments: engines)
    func cookieJarRoundTrip(engine: String) async throws {
        let bin = try await TestServers.httpbin()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let jar = scratch.file("jar.txt")
        let set = try await PotatoProcess.run(
            ["get", bin.url("/cookies/set?session=abc123").absoluteString, "--json", "-c", jar.path, "--engine", engine])
        #expect(set.status == 0, "\(set.error)")
        #expect(try cookies(in: set) == ["session": "abc123"], "kept across the redirect")
        let written = try String(contentsOf: jar, encoding: .utf8)
        #expect(written.hasPrefix("# Netscape HTTP Cookie File\n"))
        #expect(written.contains("\n127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\tabc123\n"))
        var status = stat()
        #expect(stat(jar.path, &status) == 0 && status.st_mode & 0o777 == 0o600)
        #expect(try scratch.entries() == ["jar.txt"], "no temporary file left behind")

        // -b FILE alone reads the jar and never writes it, even when the server sets a cookie.
        let read = try await PotatoProcess.run(
            ["get", bin.url("/cookies/set?extra=1").absoluteString, "--json", "-b", jar.path, "--engine", engine])
        #expect(read.status == 0, "\(read.error)")
        #expect(try cookies(in: read) == ["session": "abc123", "extra": "1"])
        #expect(try String(contentsOf: jar, encoding: .utf8) == written)

        // -b and -c on the same file: what the server deletes is gone from it.
        let deleted = try await PotatoProcess.run(
            ["get", bin.url("/cookies/delete?session").absoluteString, "--json", "-b", jar.path, "-c", jar.path, "--engine", engine])
        #expect(deleted.status == 0, "\(deleted.error)")
        #expect(try cookies(in: deleted).isEmpty)
        #expect(!(try String(contentsOf: jar, encoding: .utf8)).contains("session"))
    }

    @Test(arguments: engines)
    func nameValueCookiesAndAMissingFile(engine: String) async throws {
        let bin = try await TestServers.httpbin()
        let outcome = try await PotatoProcess.run([
            "get", bin.url("/cookies").absoluteString, "--json", "-b", "a=1; b=2", "-b", "c=3", "-H", "Cookie: d=4",
            "-b", "/nonexistent/jar.txt", "--engine", engine,
        ])
        #expect(outcome.status == 0, "\(outcome.error)")
        #expect(try cookies(in: outcome) == ["a": "1", "b": "2", "c": "3", "d": "4"])
        #expect(!outcome.error.contains("warning"), "a missing -b file is skipped quietly, as curl does: \(outcome.error)")
    }

    @Test(arguments: engines)
    func theJarIsWrittenWhenTheCallFails(engine: String) async throws {
        let bin = try await TestServers.httpbin()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let jar = scratch.file("jar.txt")
        let outcome = try await PotatoProcess.run([
            "get", bin.url("/cookies/set?login=ok").absoluteString, "--accept-status", "201", "-c", jar.path, "--engine", engine,
        ])
        #expect(outcome.status == 9, "\(outcome.error)")
        #expect(try String(contentsOf: jar, encoding: .utf8).contains("\tlogin\tok\n"))
        let stdout = try await PotatoProcess.run(
            ["get", bin.url("/cookies/set?to=stdout").absoluteString, "-q", "-c", "-", "--engine", engine])
        #expect(stdout.text.contains("# Netscape HTTP Cookie File\n"))
        #expect(stdout.text.contains("\tto\tstdout\n"))
    }

    @Test func aBareDashCStillMeansContinue() async throws {
        let bin = try await TestServers.httpbin()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let url = bin.url("/bytes/1024").absoluteString
        for arguments in [["get", url, "-o", scratch.file("a.bin").path, "-c"],
                          ["get", "-c", url, "-o", scratch.file("b.bin").path],
                          ["get", url, "-c", "-o", scratch.file("c.bin").path]] {
            let outcome = try await PotatoProcess.run(arguments)
            #expect(outcome.status == 0, "\(arguments): \(outcome.error)")
            #expect(outcome.error.contains("deprecated"), "\(arguments): \(outcome.error)")
        }
        #expect(try scratch.entries() == ["a.bin", "b.bin", "c.bin"], "no cookie jar named after an option or a URL")
        for arguments in [["get", url, "-o", scratch.file("d.bin").path, "-C", "-"], ["get", url, "-o", scratch.file("e.bin").path, "--continue-at", "-"]] {
            let outcome = try await PotatoProcess.run(arguments)
            #expect(outcome.status == 0, "\(arguments): \(outcome.error)")
            #expect(!outcome.error.contains("deprecated"))
        }
        let needsFile = try await PotatoProcess.run(["get", url, "-c", "jar.txt", "--continue"])
        #expect(needsFile.status == 2, "-c FILE is the jar: --continue still needs -o")
    }
}
