import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// `cURLDescription()` is a command line that sends the same request: run with the real `curl`
/// against httpbin's `/anything`, which echoes what it received, it gives the same method, query,
/// headers and body as HotPotato sending the request itself.
@Suite(.needsHTTPBin) struct CURLDescriptionTests {
    /// Runs `line` with `/bin/sh -c` and returns its standard output.
    private func runShell(_ line: String) throws -> Data {
        let result = try ChildProcesses.output(of: "/bin/sh", ["-c", "PATH=/usr/bin:$PATH " + line + " -s -S --max-time 60"])
        #expect(result.status == 0, "\(line)")
        return result.output
    }

    /// The parts of httpbin's echo that describe the request (not the client's own headers).
    private func essentials(_ echo: JSON) -> [String: JSON] {
        var headers: [String: JSON] = [:]
        for name in ["Authorization", "Content-Type", "X-Potato", "X-Quote", "Cookie"] {
            if let value = echo["headers"]?[key: name] { headers[name] = value }
        }
        return [
            "method": echo["method"] ?? .null, "args": echo["args"] ?? .null, "data": echo["data"] ?? .null,
            "headers": .object(JSON.Object(headers)),
        ]
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "needs the curl tool (Tests/install-test-servers.sh installs it)"))
    func curlSendsWhatHotPotatoSends() async throws {
        let bin = try await TestServers.httpbin()
        var configuration = Session.Configuration()
        configuration.headers = ["X-Potato": "session default"]
        let session = Session(configuration: configuration)
        struct Mash: Encodable { let spuds: Int; let note: String }
        let requests = [
            session.put(bin.url("/anything/path with space")).query("q", "a b&c").query("é", "ü")
                .header("X-Quote", "it's \"quoted\" $HOME `x`").basicAuthentication(user: "spud", password: "p'w")
                .body(json: Mash(spuds: 3, note: "it's")),
            session.post(bin.url("/anything")).header("Cookie", "a=b").body(Data("plain ' body\nline 2".utf8), contentType: "text/plain"),
            session.delete(bin.url("/anything")).header("X-Potato", "per request"),
        ]
        for request in requests {
            let line = request.cURLDescription(revealingSecrets: true)
            let viaCurl = try JSON(parsing: try await offThePool { try runShell(line) })
            let viaHotPotato = try await request.asJSON().content
            #expect(essentials(viaCurl) == essentials(viaHotPotato), "\(line)")
            #expect(viaCurl["method"] == .string(request.method.rawValue))
            #expect(essentials(viaCurl)["headers"]?.objectValue?.isEmpty == false, "headers compared: \(line)")
        }
    }

    @Test func secretsAreRedactedUnlessAsked() async throws {
        let session = Session()
        let request = session.get("https://example.com/x").basicAuthentication(user: "spud", password: "s3cret")
            .header("Cookie", "session=abc").header("X-Visible", "yes")
        let line = request.cURLDescription()
        #expect(!line.contains(Data("spud:s3cret".utf8).base64EncodedString()))
        #expect(!line.contains("session=abc"))
        #expect(line.contains("'Authorization: <redacted>'"))
        #expect(line.contains("'Cookie: <redacted>'"))
        #expect(line.contains("'X-Visible: yes'"))
        #expect(request.cURLDescription(revealingSecrets: true).contains("Basic " + Data("spud:s3cret".utf8).base64EncodedString()))
        #expect(session.get("ftp://example.com/").cURLDescription().hasPrefix("# "), "an invalid request is a comment")
        #expect(session.head("https://example.com/").cURLDescription().hasPrefix("curl --head "))
    }
}
