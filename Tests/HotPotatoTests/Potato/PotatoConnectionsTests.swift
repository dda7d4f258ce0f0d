import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `potato get -o FILE --connections N`: the file over several connections, checked against its
/// checksum; killed with `SIGKILL` midway, the parts on disk are kept with their record and
/// `--continue` fetches only what is missing; bad counts are usage errors.
@Suite struct PotatoConnectionsTests {
    @Test(.needsNginx, arguments: allEngines) func aFileArrivesOverSeveralConnections(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let data = try Data(contentsOf: nginx.root.appendingPathComponent("medium.bin"))
        let digest = try #require(Digest(.sha256))
        data.withUnsafeBytes { _ = digest.update($0) }
        let checksum = try #require(digest.finish())
        let file = scratch.file("medium.bin")
        let outcome = try await PotatoProcess.run(
            ["get", nginx.url("slow/medium.bin").absoluteString, "-H", "X-Rate: 16m", "-o", file.path, "--connections", "4",
             "--checksum", checksum.description, "--engine", engine == .curl ? "curl" : "urlsession", "-q",
             "-w", "%{http_code} %{num_connects} %{remote_ip} %{size_download} %{time_connect}\\n"])
        #expect(outcome.status == 0, "\(outcome.error)")
        #expect(try filesAreIdentical(file, nginx.root.appendingPathComponent("medium.bin")))
        #expect(try scratch.entries() == ["medium.bin"])
        // -w tells of every connection together: it read nothing but the code before.
        let fields = outcome.text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        #expect(fields.count == 5 && fields[0] == "206", "\(outcome.text)")
        if engine == .curl, fields.count == 5 {
            #expect((Int(fields[1]) ?? 0) >= 2, "\(outcome.text)")
            #expect(fields[2] == "127.0.0.1", "\(outcome.text)")
            let received = Int(fields[3]) ?? 0
            #expect(received == NginxServer.mediumFileSize, "\(outcome.text)")
            #expect((Double(fields[4].trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 0, "\(outcome.text)")
        }
    }

    @Test func killedMidwayItContinuesEachPart() async throws {
        let fault = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let size = 6 << 20
        let name = "potato-kill-\(UUID().uuidString)"
        let url = fault.url("/ranged?name=\(name)&size=\(size)&chunk=16384&delayMs=10").absoluteString
        let file = scratch.file("file.bin")
        // Off the cooperative threads: the waits block.
        let kept = try await offThePool {
            let first = try PotatoProcess(["get", url, "-o", file.path, "--connections", "4", "--continue", "-q"])
            let kept = PotatoProcess.waitUntil(seconds: 30) { (FileWriter.keptBytes(for: file) ?? 0) >= 1 << 20 }
            first.send(SIGKILL)
            _ = try first.wait()
            return kept
        }
        #expect(kept, "nothing was recorded as kept")
        #expect(!FileManager.default.fileExists(atPath: file.path))
        let partial = PartialDownload(destination: file.standardizedFileURL)
        let entries = try scratch.entries()
        let text = String(decoding: (try? Data(contentsOf: partial.infoURL)) ?? Data(), as: UTF8.self)
        let info = try #require(partial.loadInfo(), "\(entries): \(text)")
        let ranges = try #require(info.doneRanges)
        let before = FaultServer.rangeRequests(name).count

        let second = try await PotatoProcess.run(["get", url, "-o", file.path, "--connections", "4", "--continue"])
        #expect(second.status == 0, "\(second.error)")
        #expect(second.error.contains("resuming after"), "\(second.error)")
        let body = try Data(contentsOf: file)
        #expect(body == Data((0..<size).map { FaultServer.byte(at: $0) }))
        let resumed = FaultServer.rangeRequests(name).dropFirst(before)
        #expect(!resumed.isEmpty && resumed.allSatisfy { $0.status == 206 && $0.ifRange == "\"v1\"" }, "\(Array(resumed))")
        #expect(!resumed.contains { request in ranges.contains { $0.contains(Int64(request.start)) } },
                "a part already on disk was asked for again: \(Array(resumed)) with \(ranges) kept")
        #expect(try scratch.entries() == ["file.bin"])
    }

    @Test func aBadCountOrMirrorIsAUsageError() async throws {
        for arguments in [["-o", "/tmp/x", "--connections", "0"], ["-o", "/tmp/x", "--connections", "65"],
                          ["-o", "/tmp/x", "--connections", "four"], ["--connections", "4"]] {
            let outcome = try await PotatoProcess.run(["get", "http://127.0.0.1:9/file"] + arguments)
            #expect(outcome.status == 2, "\(arguments): \(outcome.error)")
            #expect(outcome.error.contains("--connections"), "\(arguments): \(outcome.error)")
        }
        for arguments in [["-o", "/tmp/x", "--mirror", "ftp://127.0.0.1/file"], ["-o", "/tmp/x", "--mirror", "not a url"],
                          ["--mirror", "http://127.0.0.1:9/file"]] {
            let outcome = try await PotatoProcess.run(["get", "http://127.0.0.1:9/file"] + arguments)
            #expect(outcome.status == 2, "\(arguments): \(outcome.error)")
            #expect(outcome.error.contains("--mirror"), "\(arguments): \(outcome.error)")
        }
    }

    /// Three mirrors, one of which resets every connection after 1 MiB: the file completes, and
    /// the bad mirror is dropped.
    @Test func mirrorsServeTheFileAndABadOneIsDropped() async throws {
        let fault = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let size = 6 << 20
        let names = (0..<3).map { "potato-mirror\($0)-\(UUID().uuidString)" }
        func url(_ index: Int, _ options: String = "") -> String {
            fault.url("/ranged?name=\(names[index])&size=\(size)&chunk=65536&delayMs=5\(options)").absoluteString
        }
        let file = scratch.file("file.bin")
        let outcome = try await PotatoProcess.run(
            ["get", url(0), "-o", file.path, "--mirror", url(1, "&die=1000&dieAfter=1048576"), "--mirror", url(2), "-q"])
        #expect(outcome.status == 0, "\(outcome.error)")
        #expect(try Data(contentsOf: file) == FaultServer.patternBytes(from: 0, count: size))
        #expect(FaultServer.rangeRequests(names[1]).count <= 4, "\(FaultServer.rangeRequests(names[1]))")
        #expect(!FaultServer.rangeRequests(names[2]).isEmpty)
    }
}
