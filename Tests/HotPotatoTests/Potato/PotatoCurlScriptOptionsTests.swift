import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// curl options that scripts use and potato takes as curl does: `-G` with `-d` and
/// `--data-urlencode` (its four forms), `-e`, `--oauth2-bearer`, `--url`, `-D` (every head, a
/// redirect's first, to a file or before the body on standard output), `--create-dirs`,
/// `--max-filesize`, `--http1.1`, `-r`, and the ones that change nothing potato does not already do
/// (`--compressed`, `-g`, `--basic`, `-#`, `--no-progress-meter`). The fault server's
/// `/request-headers` echoes what arrived.
@Suite struct PotatoCurlScriptOptionsTests {
    private func echoed(_ outcome: PotatoProcess.Outcome) throws -> [String: String] {
        try JSONDecoder().decode([String: String].self, from: outcome.output)
    }

    @Test func aQueryFromTheDataAndTheHeadersScriptsSet() async throws {
        try #require(Session.Engine.curl.isAvailable)
        let fault = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("note.txt")
        try Data("a b\n".utf8).write(to: file)
        let outcome = try await PotatoProcess.run([
            "get", "--url", fault.url("/request-headers?x=1").absoluteString, "--string", "-G", "-d", "a=b",
            "--data-urlencode", "msg=hello world&é", "--data-urlencode", "=x y", "--data-urlencode", "plain/text",
            "--data-urlencode", "note@\(file.path)", "-e", "http://referrer.test/page;auto", "--oauth2-bearer", "t0ken",
            "--compressed", "-g", "--basic", "--no-progress-meter", "--http1.1",
        ])
        #expect(outcome.status == 0, "\(outcome.error)")
        let sent = try echoed(outcome)
        #expect(sent[":path"] == "/request-headers?x=1&a=b&msg=hello%20world%26%C3%A9&x%20y&plain%2Ftext&note=a%20b%0A")
        #expect(sent["referer"] == "http://referrer.test/page")
        #expect(sent["authorization"] == "Bearer t0ken")
        #expect(sent["content-length"] == nil, "-G sends no body")

        // Without -G the same pieces are the body (a POST), encoded alike.
        let posted = try await PotatoProcess.run([
            "get", fault.url("/request-headers").absoluteString, "--string", "--data-urlencode", "q=1 2",
        ])
        #expect(posted.status == 0, "\(posted.error)")
        #expect(try echoed(posted)["content-length"] == "7")
    }

    @Test func everyHeadIsDumpedInOrder() async throws {
        try #require(Session.Engine.curl.isAvailable)
        let fault = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        var components = URLComponents(url: fault.url("/raw"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "status", value: "302"), URLQueryItem(name: "h", value: "Location: /request-headers")]
        let redirect = components.url!.absoluteString

        // To a file, the body to -o in a directory --create-dirs makes.
        let heads = scratch.file("heads.txt")
        let output = scratch.file("deep/er/out.json")
        let saved = try await PotatoProcess.run(["get", redirect, "-D", heads.path, "-o", output.path, "--create-dirs", "-#", "-s"])
        #expect(saved.status == 0, "\(saved.error)")
        let text = try String(contentsOf: heads, encoding: .utf8)
        let first = try #require(text.range(of: "302"))
        let second = try #require(text.range(of: "200"))
        #expect(first.lowerBound < second.lowerBound, "\(text)")
        #expect(text.contains("Location: /request-headers\r\n"))
        #expect(text.hasSuffix("\r\n\r\n"))
        #expect(FileManager.default.fileExists(atPath: output.path))

        // To standard output, before the body.
        let shown = try await PotatoProcess.run(["get", redirect, "-D", "-", "-s"])
        #expect(shown.status == 0, "\(shown.error)")
        let printed = shown.text
        let body = try #require(printed.range(of: "{"))
        let finalHead = try #require(printed.range(of: "HTTP/1.1 200"))
        #expect(finalHead.lowerBound < body.lowerBound, "\(printed)")

        // Without --create-dirs a missing directory fails, as curl's.
        let missing = try await PotatoProcess.run(["get", redirect, "-o", scratch.file("none/out.json").path, "-s"])
        #expect(missing.status == 15)
        // A -D file that cannot be written fails before anything is sent.
        let unwritable = try await PotatoProcess.run(["get", redirect, "-D", scratch.file("none/heads.txt").path])
        #expect(unwritable.status == 16)
        #expect(unwritable.error.contains("-D"))
    }

    @Test(.needsNginx) func aRangeIsAskedForAndItsPartKept() async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let url = nginx.url("small.json").absoluteString
        let whole = try Data(contentsOf: nginx.root.appendingPathComponent("small.json"))
        let first = try await PotatoProcess.run(["get", url, "-r", "0-9", "-o", scratch.file("first").path, "-s"])
        #expect(first.status == 0, "\(first.error)")
        #expect(try Data(contentsOf: scratch.file("first")) == whole.prefix(10))
        let last = try await PotatoProcess.run(["get", url, "--range=-5", "-s"])
        #expect(last.status == 0, "\(last.error)")
        #expect(last.output == whole.suffix(5))
        for bad in ["9-0", "a-b", "-", "1-2,", ""] {
            let refused = try await PotatoProcess.run(["get", url, "-r", bad])
            #expect(refused.status == 2, "\(bad)")
        }
        let withContinue = try await PotatoProcess.run(["get", url, "-r", "0-9", "-C", "-", "-o", scratch.file("c").path])
        #expect(withContinue.status == 2)
    }

    /// `--retry-all-errors` retries a status `--retry` alone does not (a 404), as curl's.
    @Test func retryAllErrorsRetriesAnyStatus() async throws {
        let retry = try await TestServers.retry()
        let name = "retry-all-\(UUID().uuidString)"
        let alone = try await PotatoProcess.run(["get", retry.url("/status/\(name)-a?fail=1&status=404").absoluteString, "--retry", "2", "--retry-delay", "0"])
        #expect(alone.status == 9, "\(alone.error)")
        let all = try await PotatoProcess.run([
            "get", retry.url("/status/\(name)-b?fail=2&status=404").absoluteString, "--retry", "2", "--retry-delay", "0", "--retry-all-errors", "--json",
        ])
        #expect(all.status == 0, "\(all.error)")
        #expect(try JSON(parsing: all.output)["attempt"]?.intValue == 3)
    }

    @Test func maxFilesizeRefusesALargerBody() async throws {
        try #require(Session.Engine.curl.isAvailable)
        let fault = try await TestServers.fault()
        let outcome = try await PotatoProcess.run(["get", fault.url("/request-headers").absoluteString, "--max-filesize", "10"])
        #expect(outcome.status == 11, "\(outcome.error)")
        let bad = try await PotatoProcess.run(["get", fault.url("/request-headers").absoluteString, "--max-filesize", "ten"])
        #expect(bad.status == 2)
    }
}
