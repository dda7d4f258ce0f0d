import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// What a black-box pass of potato's documentation found, as a curl user types it: `-o -`,
/// attached short values, `-o` in `--output-dir`, `-O` on a path ending in `/`, `-I`, `-L` and
/// `--max-redirs`, bundled short options with `-s`, `-S` and `-f`, curl's "0 is no limit", usage errors that say what is wrong, and no "resuming"
/// for an answer that continues nothing.
@Suite struct PotatoCurlSpellingsTests {
    @Test(.needsNginx) func outputToStandardOutputAndAttachedValues() async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let url = nginx.url("small.json").absoluteString
        let expected = try Data(contentsOf: nginx.root.appendingPathComponent("small.json"))
        let dash = try await PotatoProcess.run(["get", url, "-o", "-", "-q"], in: scratch.url)
        #expect(dash.status == 0, "\(dash.error)")
        #expect(dash.output == expected)
        #expect(try scratch.entries().isEmpty, "no file named -")
        let attached = try await PotatoProcess.run(["get", url, "-o\(scratch.file("a.json").path)", "-q", "-HAccept: application/json"])
        #expect(attached.status == 0, "\(attached.error)")
        #expect(try Data(contentsOf: scratch.file("a.json")) == expected)
        // -o goes into --output-dir, unless absolute.
        let directory = scratch.file("out")
        let relative = try await PotatoProcess.run(["get", url, "-o", "b.json", "--output-dir", directory.path, "-q"], in: scratch.url)
        #expect(relative.status == 0, "\(relative.error)")
        #expect(try Data(contentsOf: directory.appendingPathComponent("b.json")) == expected)
        // curl's 0: no limit.
        let unlimited = try await PotatoProcess.run(["get", url, "-m", "0", "--limit-rate", "0", "-q"])
        #expect(unlimited.status == 0, "\(unlimited.error)")
        #expect(unlimited.output == expected)
    }

    /// curl's bundled short options and its `-s`, `-S` and `-f`, as scripts type them
    /// (`curl -fsSL URL -o FILE`): taken apart, the last of a bundle with its value attached
    /// or next; `-s` writes nothing to standard error, `-sS` its errors, `-v` its lines still.
    @Test(.needsNginx) func bundledShortOptionsAndSilence() async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let url = nginx.url("small.json").absoluteString
        let expected = try Data(contentsOf: nginx.root.appendingPathComponent("small.json"))
        let next = try await PotatoProcess.run(["get", "-fsSLo", scratch.file("a.json").path, url, "--progress", "lines"])
        #expect(next.status == 0, "\(next.error)")
        #expect(next.error.isEmpty, "-s writes nothing to standard error, progress included: \(next.error)")
        #expect(try Data(contentsOf: scratch.file("a.json")) == expected)
        let attached = try await PotatoProcess.run(["get", "-sSLo\(scratch.file("b.json").path)", url])
        #expect(attached.status == 0, "\(attached.error)")
        #expect(try Data(contentsOf: scratch.file("b.json")) == expected)
        let named = try await PotatoProcess.run(["get", "-qO", url], in: scratch.url)
        #expect(named.status == 0, "\(named.error)")
        #expect(try Data(contentsOf: scratch.file("small.json")) == expected)

        let missing = nginx.url("no-such-file-\(UUID().uuidString)").absoluteString
        let plain = try await PotatoProcess.run(["get", missing])
        #expect(plain.status == 9 && plain.error.contains("404"), "\(plain.status): \(plain.error)")
        let silent = try await PotatoProcess.run(["get", "-fs", missing])
        #expect(silent.status == 9, "-s changes what is said, not the exit status: \(silent.status)")
        #expect(silent.error.isEmpty && silent.output.isEmpty, "\(silent.error)")
        let shown = try await PotatoProcess.run(["get", "-fsS", missing])
        #expect(shown.status == 9, "\(shown.status)")
        #expect(shown.error.contains("404"), "-S shows the error: \(shown.error)")
        let verbose = try await PotatoProcess.run(["get", "-sv", url])
        #expect(verbose.status == 0 && verbose.output == expected, "\(verbose.error)")
        #expect(verbose.error.contains("> GET"), "-v writes its lines even with -s: \(verbose.error)")

        let unknown = try await PotatoProcess.run(["get", "-fsk", url])
        #expect(unknown.status == 2, "\(unknown.error)")
        #expect(unknown.error.contains("unknown option -k in -fsk"), "\(unknown.error)")
        // A value that looks like a bundle is still the value of the option before it.
        let data = try await PotatoProcess.run(["get", nginx.url("small.json").absoluteString, "-H", "-fsS: x", "-q"])
        #expect(data.status == 0, "-H takes \"-fsS: x\" as its header: \(data.error)")
    }

    @Test(.needsHTTPBin) func aPathEndingInASlashIsSavedAsIndexHTML() async throws {
        let bin = try await TestServers.httpbin()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let outcome = try await PotatoProcess.run(["get", bin.url("/anything/docs/").absoluteString, "-O", "-q"], in: scratch.url)
        #expect(outcome.status == 0, "\(outcome.error)")
        #expect(try scratch.entries() == ["index.html"])
    }

    @Test(.needsHTTPBin) func headRedirectsAndTheirLimit() async throws {
        let bin = try await TestServers.httpbin()
        let head = try await PotatoProcess.run(["get", "-I", bin.url("/response-headers").absoluteString + "?X-Spud=mashed"])
        #expect(head.status == 0, "\(head.error)")
        #expect(head.text.hasPrefix("HTTP/1.1 200 OK\r\n") || head.text.hasPrefix("HTTP 200 OK\r\n"), "\(head.text)")
        #expect(head.text.contains("\r\nX-Spud: mashed\r\n") && head.text.hasSuffix("\r\n\r\n"), "\(head.text)")
        let followed = try await PotatoProcess.run(["get", "-L", bin.url("/redirect/2").absoluteString, "--json", "url"])
        #expect(followed.status == 0, "\(followed.error)")
        #expect(followed.text.contains("/get"), "\(followed.text)")
        let tooMany = try await PotatoProcess.run(["get", bin.url("/redirect/3").absoluteString, "--max-redirs", "2"])
        #expect(tooMany.status == 1, "\(tooMany.error)")
        #expect(tooMany.error.contains("more than 2"), "\(tooMany.error)")
        let unlimited = try await PotatoProcess.run(["get", bin.url("/redirect/12").absoluteString, "--max-redirs", "-1", "--json", "url"])
        #expect(unlimited.status == 0, "curl's -1: past the default 10: \(unlimited.error)")
        let none = try await PotatoProcess.run(["get", bin.url("/redirect/1").absoluteString, "--max-redirs", "0"])
        #expect(none.status == 9, "a redirect not followed is the answer, outside 200-299: \(none.error)")
        let bad = try await PotatoProcess.run(["get", bin.url("/get").absoluteString, "--max-redirs", "-2"])
        #expect(bad.status == 2 && bad.error.contains("--max-redirs"), "\(bad.error)")
    }

    /// `--continue` again after the download finished, as a retry loop around potato does: the
    /// file is complete (the server gives its length), exit 0; a file of another length is
    /// refused as before.
    @Test(.needsNginx) func continuingAFinishedDownloadSucceeds() async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let url = nginx.url("medium.bin").absoluteString
        let file = scratch.file("medium.bin")
        let first = try await PotatoProcess.run(["get", url, "-o", file.path, "-C", "-", "-q"])
        #expect(first.status == 0, "\(first.error)")
        let again = try await PotatoProcess.run(["get", url, "-o", file.path, "-C", "-"])
        #expect(again.status == 0, "\(again.error)")
        #expect(again.error.contains("is already complete"), "\(again.error)")
        #expect(try filesAreIdentical(file, nginx.root.appendingPathComponent("medium.bin")))
        // Another length: not this download's file.
        try Data("short".utf8).write(to: file)
        let other = try await PotatoProcess.run(["get", url, "-o", file.path, "-C", "-", "-q"])
        #expect(other.status == 16, "\(other.error)")
        #expect(try Data(contentsOf: file) == Data("short".utf8))
    }

    /// The length is asked for the bytes as stored: a server that compresses for a client that
    /// accepts it gives none otherwise. With `--checksum`, FILE's digest decides, and a FILE that
    /// does not match is refused as before.
    @Test(.needsNginx) func continuingAFinishedDownloadOfACompressibleFileOrWithAChecksum() async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let url = nginx.url("gzipped/medium.bin").absoluteString
        let file = scratch.file("medium.bin")
        let first = try await PotatoProcess.run(["get", url, "-o", file.path, "-C", "-q"])
        #expect(first.status == 0, "\(first.error)")
        let again = try await PotatoProcess.run(["get", url, "-o", file.path, "-C"])
        #expect(again.status == 0 && again.error.contains("is already complete"), "\(again.error)")
        let data = try Data(contentsOf: file)
        let digest = try #require(Digest(.sha256))
        data.withUnsafeBytes { _ = digest.update($0) }
        let checksum = try #require(digest.finish())
        #expect(try Checksum.ofFile(at: file, algorithm: .sha256) == checksum)
        let matching = try await PotatoProcess.run(["get", "http://127.0.0.1:1/medium.bin", "-o", file.path, "-C", "--checksum", checksum.description])
        #expect(matching.status == 0 && matching.error.contains("its sha256 is the one given"), "nothing asked: \(matching.error)")
        let other = String(repeating: "1", count: 64)
        let mismatch = try await PotatoProcess.run(["get", url, "-o", file.path, "-C", "--checksum", "sha256=\(other)", "-q"])
        #expect(mismatch.status == 16, "\(mismatch.error)")
        #expect(try Data(contentsOf: file) == data)
    }

    @Test(.needsHTTPBin) func headAndStandardOutputConflicts() async throws {
        let bin = try await TestServers.httpbin()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let url = bin.url("/get").absoluteString
        try Data("precious".utf8).write(to: scratch.file("keep.txt"))
        for arguments in [["-o", "keep.txt", "--overwrite"], ["-O"], ["--json"], ["-X", "POST"]] {
            let outcome = try await PotatoProcess.run(["get", url, "-I"] + arguments, in: scratch.url)
            #expect(outcome.status == 2, "\(arguments): \(outcome.error)")
            #expect(outcome.error.contains("-I"), "\(arguments): \(outcome.error)")
        }
        #expect(try Data(contentsOf: scratch.file("keep.txt")) == Data("precious".utf8))
        // -o - is standard output, --output-dir or not.
        let dash = try await PotatoProcess.run(["get", url, "-o", "-", "--output-dir", "out", "-q"], in: scratch.url)
        #expect(dash.status == 0 && dash.text.contains("\"url\""), "\(dash.error)")
        #expect(try scratch.entries() == ["keep.txt"])
        // -cFILE: the cookie jar, attached.
        let jar = try await PotatoProcess.run(["get", bin.url("/cookies/set?spud=1").absoluteString, "-cjar.txt", "-q"], in: scratch.url)
        #expect(jar.status == 0, "\(jar.error)")
        #expect(try String(contentsOf: scratch.file("jar.txt"), encoding: .utf8).contains("\tspud\t1"))
    }

    /// An -i NAME may not lead out of the output directory through a symbolic link, nor name a
    /// directory.
    @Test(.needsNginx) func inputNamesFollowNoLinkAndNameFiles() async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let outside = scratch.file("outside")
        let directory = scratch.file("out")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: directory.appendingPathComponent("link"), withDestinationURL: outside)
        let url = nginx.url("small.json").absoluteString
        let list = scratch.file("list.txt")
        try Data("\(url)\tlink/evil.json\n\(url)\tsub/\n\(url)\t.\n\(url)\tfine/ok.json\n".utf8).write(to: list)
        let outcome = try await PotatoProcess.run(["get", "-i", list.path, "--output-dir", directory.path, "-q"])
        #expect(outcome.status == 2, "\(outcome.error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("sub").path))
        #expect(try filesAreIdentical(directory.appendingPathComponent("fine/ok.json"), nginx.root.appendingPathComponent("small.json")))
    }

    @Test func shortIdleTimeoutsAreLookedAtOftenEnough() {
        #expect(CurlEventLoop.sweepInterval(shortestLimit: 300_000_000) == 75_000_000)
        #expect(CurlEventLoop.sweepInterval(shortestLimit: 60_000_000_000) == 250_000_000)
        #expect(CurlEventLoop.sweepInterval(shortestLimit: 1_000_000) == 10_000_000)
        #expect(CurlEventLoop.sweepInterval(shortestLimit: .max) == 250_000_000)
    }

    @Test func usageErrorsSayWhatIsWrong() async throws {
        let cases: [([String], String)] = [
            (["-o", "/tmp/x", "-C", "100"], "cannot start at an offset"),
            (["-o", "/tmp/x", "-C100"], "cannot start at an offset"),
            (["-o", "/tmp/x", "--checksum", "sha256=abcd"], "64 hexadecimal digits (\"abcd\" has 4)"),
            (["-o", "/tmp/x", "--checksum", "sha3=abcd"], "ALGORITHM one of"),
            (["-x", "127.0.0.1:70000"], "the port 70000"),
        ]
        for (arguments, message) in cases {
            let outcome = try await PotatoProcess.run(["get", "http://127.0.0.1:9/file"] + arguments)
            #expect(outcome.status == 2, "\(arguments): \(outcome.error)")
            #expect(outcome.error.contains(message), "\(arguments): \(outcome.error)")
        }
    }

    /// A server that answers the rest of a partial file with the whole file as a range: potato
    /// does not say it resumes, and fails as it did.
    @Test func noResumingIsSaidForAnAnswerThatContinuesNothing() async throws {
        let fault = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let name = "potato-from-zero-\(UUID().uuidString)"
        let url = fault.url("/ranged?name=\(name)&size=\(4 << 20)&chunk=16384&delayMs=10").absoluteString
        let file = scratch.file("file.bin")
        // Off the cooperative threads: the waits block.
        let kept = try await offThePool {
            let first = try PotatoProcess(["get", url, "-o", file.path, "--continue", "-q"])
            let kept = PotatoProcess.waitUntil(seconds: 30) { (FileWriter.keptBytes(for: file) ?? 0) >= 64 << 10 }
            first.send(SIGKILL)
            _ = try first.wait()
            return kept
        }
        #expect(kept, "nothing was kept")
        FaultServer.answerRangesFromZero(name)
        let second = try await PotatoProcess.run(["get", url, "-o", file.path, "--continue", "--retry", "0"])
        #expect(second.status == 18, "\(second.error)")
        #expect(!second.error.contains("resuming after"), "\(second.error)")
        #expect(second.error.contains("cannot resume"), "\(second.error)")
    }
}
