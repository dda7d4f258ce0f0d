import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The `potato` command line, driven through the built binary against the test servers: every
/// option, every failure with its exit status and message, and no partial file where none belongs.
@Suite struct PotatoCommandTests {
    // MARK: Help and usage

    @Test func helpDocumentsEveryOptionAndExitStatus() async throws {
        let main = try await PotatoProcess.run(["--help"])
        #expect(main.status == 0)
        #expect(main.text.contains("potato get URL"))
        let get = try await PotatoProcess.run(["get", "--help"])
        #expect(get.status == 0)
        for option in ["-o, --output", "--json [KEYPATH]", "--string", "-H, --header", "-u, --user", "-X, --request", "-d, --data",
                       "--data-file", "--accept-status", "--accept-type", "--max-size", "-C, --continue", "-b, --cookie", "-c, --cookie-jar", "-v, --verbose",
                       "-q, --quiet", "--progress", "--timeout", "-m, --max-time", "--overwrite", "--checksum ALG=HEX", "--only-if-changed", "-R, --remote-time", "--limit-rate RATE"] {
            #expect(get.text.contains(option), "get --help lists \(option)")
        }
        for code in [0, 2, 3, 4, 5, 6, 9, 10, 11, 12, 13, 14, 15, 16, 22, 130] {
            #expect(get.text.contains("\n  \(code) "), "get --help explains exit status \(code)")
        }
    }

    @Test(arguments: [
        ["get"], ["get", "--frobnicate", "http://127.0.0.1/"], ["get", "http://127.0.0.1/", "--continue"],
        ["get", "http://127.0.0.1/", "-o"], ["get", "http://127.0.0.1/", "--accept-status", "abc"],
        ["get", "http://127.0.0.1/", "--json", "--string"], ["fetch", "http://127.0.0.1/"],
    ])
    func usageErrorsExitWith2(arguments: [String]) async throws {
        let outcome = try await PotatoProcess.run(arguments)
        #expect(outcome.status == 2)
        #expect(outcome.error.contains("potato: "))
        #expect(outcome.error.contains("--help"))
    }

    @Test(arguments: ["not a url", "ftp://127.0.0.1/file", "http://", "/just/a/path"])
    func badURLExitsWith3(url: String) async throws {
        let outcome = try await PotatoProcess.run(["get", url])
        #expect(outcome.status == 3)
        #expect(outcome.error.contains("bad URL"))
    }

    // MARK: Downloads

    @Test(.needsNginx) func downloadsToAFileWithPlainProgressLines() async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("medium.bin")
        // 8 MiB at 2 MiB/s: about three seconds (nginx sends the first second's 2 MiB at once), so
        // the one-a-second lines show. At 4m it took about one second, on the edge.
        let url = "\(nginx.baseURL)/slow/medium.bin?rate=2m"
        let outcome = try await PotatoProcess.run(["get", url, "-o", destination.path])
        #expect(outcome.status == 0, "\(outcome.error)")
        #expect(try sameContents(destination, nginx.root.appendingPathComponent("medium.bin")))
        #expect(try scratch.entries() == ["medium.bin"], "no temporary file left")
        #expect(outcome.error.contains(" of 8.00 MiB ("), "a plain progress line when stderr is not a terminal: \(outcome.error)")
        #expect(outcome.error.contains("ETA"))
        #expect(!outcome.error.contains("\r"))
        #expect(outcome.error.contains("saved 8.00 MiB to \(destination.path)"))
    }

    @Test(.needsNginx) func progressBarAndQuiet() async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let url = "\(nginx.baseURL)/slow/medium.bin?rate=16m"
        let bar = try await PotatoProcess.run(["get", url, "-o", scratch.file("a").path, "--progress", "bar"])
        #expect(bar.status == 0)
        #expect(bar.error.contains("\r"), "the bar is redrawn in place")
        #expect(bar.error.contains("%] ") || bar.error.contains("% ["), "\(bar.error)")
        #expect(bar.error.contains("MiB/s"))
        #expect(bar.error.contains("/ 8.00 MiB"))
        let quiet = try await PotatoProcess.run(["get", url, "-o", scratch.file("b").path, "-q"])
        #expect(quiet.status == 0)
        #expect(quiet.error.isEmpty, "-q prints nothing on success: \(quiet.error)")
        #expect(fileSize(scratch.file("b")) == Int64(NginxServer.mediumFileSize))
    }

    @Test(.needsNginx, arguments: allEngineNames)
    func withoutOutputTheBodyGoesToStandardOutput(engine: String) async throws {
        let nginx = try await TestServers.nginx()
        let outcome = try await PotatoProcess.run(["get", nginx.url("small.json").absoluteString, "-v", "--engine", engine])
        #expect(outcome.status == 0)
        #expect(outcome.output == (try Data(contentsOf: nginx.root.appendingPathComponent("small.json"))))
        // With the version of HTTP where the engine knows it (curl's).
        let statusLine = engine == "curl" ? "< HTTP/1.1 200 OK" : "< HTTP 200 OK"
        #expect(outcome.error.contains(statusLine), "-v prints the status line: \(outcome.error)")
        #expect(outcome.error.lowercased().contains("< content-type: application/json"))
    }

    @Test(.needsNginx) func jsonPrettyPrintedOrAtAKeyPath() async throws {
        let nginx = try await TestServers.nginx()
        let url = nginx.url("small.json").absoluteString
        let whole = try await PotatoProcess.run(["get", url, "--json"])
        #expect(whole.status == 0)
        #expect(try JSON(parsing: whole.output) == JSON(parsing: Data(contentsOf: nginx.root.appendingPathComponent("small.json"))))
        #expect(whole.text.contains("\n  \"name\" : \"HotPotato\"") || whole.text.contains("\n  \"name\": \"HotPotato\""), "pretty: \(whole.text)")
        let item = try await PotatoProcess.run(["get", "--json", "items.1", url])
        #expect(item.text == "2\n")
        let nested = try await PotatoProcess.run(["get", url, "--json=nested.ok"])
        #expect(nested.text == "true\n")
        let missing = try await PotatoProcess.run(["get", url, "--json", "nested.nope"])
        #expect(missing.status == 17)
    }

    @Test func stringDecodedByItsCharset() async throws {
        let server = try await TestServers.fault()
        let outcome = try await PotatoProcess.run(["get", server.url("/text?charset=iso-8859-1").absoluteString, "--string"])
        #expect(outcome.status == 0)
        #expect(outcome.text == "Grüße, Zoë\n")
    }

    @Test(.needsHTTPBin) func methodHeadersAndData() async throws {
        let httpbin = try await TestServers.httpbin()
        let url = httpbin.url("/anything").absoluteString
        let posted = try await PotatoProcess.run([
            "get", url, "-X", "PUT", "-H", "X-Potato: mashed", "-H", "Content-Type: text/plain", "-d", "hello potato", "--json",
        ])
        #expect(posted.status == 0, "\(posted.error)")
        let echo = try JSON(parsing: posted.output)
        #expect(echo["method"] == "PUT")
        #expect(echo["headers.X-Potato"] == "mashed")
        #expect(echo["data"] == "hello potato")

        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = scratch.file("body.json")
        try Data(#"{"spud":1}"#.utf8).write(to: body)
        let fromFile = try await PotatoProcess.run(["get", url, "--data-file", body.path, "-H", "Content-Type: application/json", "--json"])
        let fileEcho = try JSON(parsing: fromFile.output)
        #expect(fileEcho["method"] == "POST", "a body means POST unless -X says otherwise")
        #expect(fileEcho["json.spud"] == 1)
    }

    /// `-A` names the client; a `-H 'User-Agent: …'` wins over it in either order; by default
    /// both engines send `HotPotato`; an empty `-A` sends none (the libcurl engine) or fails (URLSession).
    @Test(.needsHTTPBin, arguments: allEngineNames) func userAgent(engine: String) async throws {
        let httpbin = try await TestServers.httpbin()
        let url = httpbin.url("/headers").absoluteString
        func sent(_ extra: [String]) async throws -> String? {
            let outcome = try await PotatoProcess.run(["get", url, "--json", "headers.User-Agent", "--engine", engine] + extra)
            #expect(outcome.status == 0, "\(outcome.error)")
            return try JSON(parsing: outcome.output).stringValue
        }
        #expect(try await sent([]) == "HotPotato")
        #expect(try await sent(["-A", "spud/1.0 (+tests)"]) == "spud/1.0 (+tests)")
        #expect(try await sent(["--user-agent=tater"]) == "tater")
        #expect(try await sent(["-H", "User-Agent: header", "-A", "option"]) == "header")
        #expect(try await sent(["-A", "option", "-H", "user-agent: header"]) == "header")
        // As curl, an empty -A sends none; URLSession cannot keep its own out, and says so.
        let empty = try await PotatoProcess.run(["get", url, "--json", "headers", "--engine", engine, "-A", ""])
        if engine == "curl" {
            #expect(empty.status == 0, "\(empty.error)")
            let headers = try JSON(parsing: empty.output)
            #expect(headers["Host"]?.stringValue != nil)
            #expect(headers["User-Agent"] == nil)
        } else {
            #expect(empty.status == 1)
            #expect(empty.error.contains("user-agent"), "\(empty.error)")
        }
        let control = try await PotatoProcess.run(["get", url, "-A", "a\nb"])
        #expect(control.status == 2)
        #expect(control.error.contains("-A needs a name"))
    }

    /// `-u user:password` sends Basic credentials that httpbin checks; a wrong password is the
    /// server's 401 (exit status 10 with its message), and `-u` without a colon is a usage error.
    @Test(.needsHTTPBin) func basicCredentials() async throws {
        let httpbin = try await TestServers.httpbin()
        let url = httpbin.url("/basic-auth/spud/s3cr:et").absoluteString
        let accepted = try await PotatoProcess.run(["get", url, "-u", "spud:s3cr:et", "--json"])
        #expect(accepted.status == 0, "\(accepted.error)")
        let echo = try JSON(parsing: accepted.output)
        #expect(echo["authenticated"] == true)
        #expect(echo["user"] == "spud")
        let refused = try await PotatoProcess.run(["get", url, "-u", "spud:wrong"])
        #expect(refused.status != 0)
        #expect(refused.error.contains("401"), "\(refused.error)")
        let usage = try await PotatoProcess.run(["get", url, "-u", "spud"])
        #expect(usage.status == 2, "\(usage.error)")
    }

    // MARK: Acceptance and limits

    @Test func unacceptableStatusPrintsTheServersMessageAndLeavesNoFile() async throws {
        let server = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let url = server.url("/typed?status=401&type=application/json").absoluteString
        let outcome = try await PotatoProcess.run(["get", url, "-o", scratch.file("out.json").path])
        #expect(outcome.status == 9)
        #expect(outcome.error.contains("HTTP 401"))
        #expect(outcome.error.contains("the server says: typed response"))
        #expect(try scratch.entries().isEmpty)
        // Accepted when asked.
        let accepted = try await PotatoProcess.run(["get", url, "--accept-status", "200-299,401", "--string"])
        #expect(accepted.status == 0)
        #expect(accepted.text.contains("typed response"))
    }

    @Test(.needsNginx) func unacceptableTypeExitsWith10() async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let outcome = try await PotatoProcess.run([
            "get", nginx.url("medium.bin").absoluteString, "-o", scratch.file("m").path, "--accept-type", "application/json",
        ])
        #expect(outcome.status == 10)
        #expect(outcome.error.contains("application/octet-stream"))
        #expect(try scratch.entries().isEmpty)
        let accepted = try await PotatoProcess.run([
            "get", nginx.url("medium.bin").absoluteString, "-o", scratch.file("m").path,
            "--accept-type", "application/json", "--accept-type", "application/*", "-q",
        ])
        #expect(accepted.status == 0)
    }

    @Test(.needsNginx) func bodyOverTheLimitExitsWith11() async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let outcome = try await PotatoProcess.run(["get", nginx.url("medium.bin").absoluteString, "-o", scratch.file("m").path, "--max-size", "1M"])
        #expect(outcome.status == 11)
        #expect(outcome.error.contains("--max-size 1048576"))
        #expect(try scratch.entries().isEmpty)
        let json = try await PotatoProcess.run(["get", nginx.url("small.json").absoluteString, "--json", "--max-size", "10"])
        #expect(json.status == 11)
    }

    // MARK: Transport failures

    @Test func connectionRefusedExitsWith4() async throws {
        let port = try freeLoopbackPort()
        let outcome = try await PotatoProcess.run(["get", "http://127.0.0.1:\(port)/"])
        #expect(outcome.status == 4)
        #expect(outcome.error.contains("connection refused"))
    }

    @Test func unknownHostExitsWith5() async throws {
        let outcome = try await PotatoProcess.run(["get", "http://no-such-host.invalid/", "--timeout", "10"])
        #expect(outcome.status == 5)
        #expect(outcome.error.contains("host not found"))
    }

    @Test func timeoutExitsWith6() async throws {
        let server = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // The server stays silent for 30 s, far longer than the 1 s timeout: were the timeout not
        // to fire, its close would end the download as cut short (another exit status).
        let outcome = try await PotatoProcess.run([
            "get", server.url("/stall?declared=1000&sent=10&seconds=30").absoluteString, "--timeout", "1", "-o", scratch.file("s").path,
            "--retry", "2", "--retry-delay", "0",
        ])
        #expect(outcome.status == 6)
        #expect(outcome.error.contains("timed out"))
        #expect(try scratch.entries().isEmpty)
    }

    /// A server that trickles its body (a piece every 100 ms, 200 KB in all: 20 s) never trips
    /// `--timeout`; `--max-time 1` ends it, with no file left. Both engines.
    @Test(arguments: allEngineNames) func maxTimeEndsATransferThatTrickles(engine: String) async throws {
        let server = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let outcome = try await PotatoProcess.run([
            "get", server.url("/drip?bytes=204800&chunk=1024&delayMs=100").absoluteString, "--timeout", "5", "--max-time", "1",
            "-o", scratch.file("s").path, "--retry", "0", "--engine", engine,
        ])
        #expect(outcome.status == 6, "\(outcome.error)")
        #expect(try scratch.entries().isEmpty)
        let refused = try await PotatoProcess.run(["get", server.url("/drip").absoluteString, "--max-time", "soon"])
        #expect(refused.status == 2)
    }

    /// Bytes written to standard output (or a pipe, a device) cannot be taken back: a body cut
    /// short is not fetched again after them, whatever `--retry` says (the output had the first
    /// 30 000 bytes twice, and the exit status was 0). And with `-o`, `--max-time` ends the run,
    /// not each of its five retries (a 1 s limit took over 10 s).
    @Test func nothingIsWrittenTwiceAndMaxTimeEndsTheRetries() async throws {
        let server = try await TestServers.fault()
        let cut = try await PotatoProcess.run([
            "get", server.url("/short?declared=100000&sent=30000").absoluteString, "--retry", "3", "--retry-delay", "0", "-q",
        ])
        #expect(cut.status == 12, "\(cut.error)")
        #expect(cut.output.count == 30000, "written once: \(cut.output.count) bytes")

        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let started = Date()
        let slow = try await PotatoProcess.run([
            "get", server.url("/drip?bytes=204800&chunk=1024&delayMs=100").absoluteString, "-m", "1", "--retry-delay", "0.2",
            "-o", scratch.file("s").path, "-q",
        ])
        #expect(slow.status == 6, "\(slow.error)")
        // About a second; five retries of a second each, with their waits, took over ten.
        #expect(Date().timeIntervalSince(started) < 8)
        #expect(try scratch.entries().isEmpty)
    }

    @Test func connectionLostExitsWith8() async throws {
        let server = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // -o retries by default: after the last attempt, the exit status is its failure's, and
        // nothing is left.
        let outcome = try await PotatoProcess.run(["get", server.url("/reset").absoluteString, "-o", scratch.file("r").path, "--retry-delay", "0"])
        #expect(outcome.status == 8)
        #expect(outcome.error.contains("connection lost"))
        #expect(try scratch.entries().isEmpty)
    }

    @Test(.needsNginx) func untrustedCertificateExitsWith7() async throws {
        let nginx = try await TestServers.nginx()
        let tls = try #require(nginx.tls, "the test CA could not be made")
        let outcome = try await PotatoProcess.run(["get", "https://127.0.0.1:\(tls.port)/small.json"])
        #expect(outcome.status == 7, "signed by the tests' own CA, which potato does not trust: \(outcome.error)")
        #expect(outcome.error.contains("TLS failure"))
    }

    @Test func truncatedBodyExitsWith12AndKeepsOnlyWhatContinueAsksFor() async throws {
        let server = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let url = server.url("/short?declared=5000&sent=3000").absoluteString
        let plain = try await PotatoProcess.run(["get", url, "-o", scratch.file("short.bin").path, "--retry-delay", "0"])
        #expect(plain.status == 12)
        #expect(plain.error.contains("truncated body"))
        #expect(try scratch.entries().isEmpty)
        let kept = try await PotatoProcess.run(["get", url, "-o", scratch.file("short.bin").path, "--continue", "--retry-delay", "0"])
        #expect(kept.status == 12)
        #expect(kept.error.contains("--continue"), "says how to resume: \(kept.error)")
        #expect(fileSize(FileWriter.partialFileURL(for: scratch.file("short.bin"))) == 3000)
        #expect(fileSize(scratch.file("short.bin")) == nil)
    }

    // MARK: Files

    @Test(.needsNginx) func fileErrors() async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let url = nginx.url("small.json").absoluteString
        let missing = try await PotatoProcess.run(["get", url, "-o", scratch.file("no/such/dir/x.json").path])
        #expect(missing.status == 15)
        #expect(missing.error.contains("missing directory"))
        try Data("keep me".utf8).write(to: scratch.file("exists.json"))
        let exists = try await PotatoProcess.run(["get", url, "-o", scratch.file("exists.json").path])
        #expect(exists.status == 16)
        #expect(exists.error.contains("--overwrite"))
        #expect(try Data(contentsOf: scratch.file("exists.json")) == Data("keep me".utf8), "never clobbered")
        let replaced = try await PotatoProcess.run(["get", url, "-o", scratch.file("exists.json").path, "--overwrite", "-q"])
        #expect(replaced.status == 0)
        #expect(try Data(contentsOf: scratch.file("exists.json")) == Data(contentsOf: nginx.root.appendingPathComponent("small.json")))
    }

    @Test(.needsNginx, .enabled(if: SmallFileSystem.isSupported, "needs Linux and root to mount a tmpfs"))
    func diskFullAndReadOnly() async throws {
        let nginx = try await TestServers.nginx()
        let small = try SmallFileSystem(bytes: 1024 * 1024)
        defer { small.unmount() }
        let full = try await PotatoProcess.run(["get", nginx.url("medium.bin").absoluteString, "-o", small.file("m.bin").path])
        #expect(full.status == 13)
        #expect(full.error.contains("disk full"))
        #expect(try small.entries().isEmpty, "no partial file")
        let readOnly = try SmallFileSystem(bytes: 1024 * 1024, readOnly: true)
        defer { readOnly.unmount() }
        let denied = try await PotatoProcess.run(["get", nginx.url("small.json").absoluteString, "-o", readOnly.file("s.json").path])
        #expect(denied.status == 14)
        #expect(denied.error.contains("permission denied"))
    }

    // MARK: Interrupts and resuming

    /// Starts `potato get url -o destination` (plus `extra`), waits until `bytes` have reached the
    /// disk, then sends `signal`; returns the outcome.
    static func interrupt(
        _ url: String, to destination: URL, extra: [String] = [], after bytes: Int64, with signal: Int32
    ) async throws -> PotatoProcess.Outcome {
        try await offThePool {
            let process = try PotatoProcess(["get", url, "-o", destination.path, "-q"] + extra)
            let directory = destination.deletingLastPathComponent()
            // The body goes to a named partial file, or to an anonymous one (O_TMPFILE) only the
            // process's descriptors show.
            let reached = PotatoProcess.waitUntil {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
                return names.contains { (fileSize(directory.appendingPathComponent($0)) ?? 0) >= bytes }
                    || openFiles(ofProcess: String(process.identifier), under: directory).contains { $0.size >= bytes }
            }
            process.send(reached ? signal : SIGKILL)
            return try process.wait()
        }
    }

    @Test(.needsNginx, arguments: [(SIGINT, 130), (SIGTERM, 143)] as [(Int32, Int32)])
    func anInterruptRemovesThePartialFile(signal: Int32, status: Int32) async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // At 1 MiB/s the 8 MiB take about seven seconds: the signal comes long before the end,
        // even on a busy machine.
        let outcome = try await Self.interrupt(
            "\(nginx.baseURL)/slow/medium.bin?rate=1m", to: scratch.file("m.bin"), after: 512 * 1024, with: signal)
        #expect(outcome.status == status)
        #expect(outcome.error.contains("interrupted; nothing was kept"))
        #expect(try scratch.entries().isEmpty)
    }

    @Test(.needsNginx) func aResumed256MiBDownloadIsByteIdentical() async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("big.bin")
        // The first run is throttled by a header (the URL stays the same), the resumed one is not.
        // At 32 MiB/s the interrupt at 64 MiB comes about six seconds before the end.
        let url = "\(nginx.baseURL)/slow/big.bin"
        let interrupted = try await Self.interrupt(
            url, to: destination, extra: ["--continue", "-H", "X-Rate: 32m"], after: 64 << 20, with: SIGINT)
        #expect(interrupted.status == 130)
        #expect(interrupted.error.contains("kept in"), "\(interrupted.error)")
        let kept = try #require(fileSize(FileWriter.partialFileURL(for: destination)))
        #expect(kept >= 64 << 20 && kept < Int64(NginxServer.bigFileSize))
        #expect(fileSize(destination) == nil)

        let resumed = try await PotatoProcess.run(["get", url, "-o", destination.path, "--continue", "--progress", "none"])
        #expect(resumed.status == 0, "\(resumed.error)")
        #expect(resumed.error.contains("resuming after"))
        #expect(fileSize(destination) == Int64(NginxServer.bigFileSize))
        #expect(try await offThePool { try sameContents(destination, nginx.root.appendingPathComponent("big.bin")) })
        #expect(try scratch.entries() == ["big.bin"], "the partial file and its record are gone")
    }

    @Test(.needsNginx) func aDownloadKilledMidwayResumesByteIdentical() async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("medium.bin")
        let url = "\(nginx.baseURL)/slow/medium.bin"
        // SIGKILL: no clean-up at all, as in a crash or a power cut. At 1 MiB/s the kill at 2 MiB
        // comes about six seconds before the end.
        let killed = try await Self.interrupt(url, to: destination, extra: ["--continue", "-H", "X-Rate: 1m"], after: 2 << 20, with: SIGKILL)
        #expect(killed.status != 0)
        let kept = try #require(fileSize(FileWriter.partialFileURL(for: destination)))
        let total = try #require(fileSize(nginx.root.appendingPathComponent("medium.bin")))
        #expect(kept > 0)
        try #require(kept < total, "the killed run left something to resume")
        // Throttled so that the rest takes about three seconds and progress lines show: they count
        // the whole file, the kept bytes included, not just what this response brings. nginx's
        // limit_rate sends one second's worth at once, so the rate follows what is left (a fixed
        // 4m finished the 4 MiB left in 0.5 s, before the first line was due).
        let rate = max(1, (total - kept) / 4)
        let resumed = try await PotatoProcess.run(
            ["get", url, "-o", destination.path, "--continue", "-H", "X-Rate: \(rate)"])
        #expect(resumed.status == 0, "\(resumed.error)")
        #expect(try sameContents(destination, nginx.root.appendingPathComponent("medium.bin")))
        #expect(resumed.error.contains("resuming after"), "\(resumed.error)")
        #expect(resumed.error.contains(" of 8.00 MiB ("), "progress counts the whole file: \(resumed.error)")
        #expect(resumed.error.contains("saved 8.00 MiB"), "\(resumed.error)")
    }
}
