import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Batches: `potato get URL URL … --output-dir DIR`, `-O`, `-i FILE` (`URL` or `URL<TAB>NAME` a
/// line, `-` for standard input) and `--parallel N`. Every download runs, one failure does not
/// stop the others, the exit status is the first failure's, two downloads to one file are
/// refused (exit 19), and a summary ends the run.
@Suite(.needsNginx) struct PotatoBatchTests {
    @Test func severalURLsGoToADirectoryAndAFailureDoesNotStopTheOthers() async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.file("downloads")
        let outcome = try await PotatoProcess.run(
            ["get", nginx.url("medium.bin").absoluteString, nginx.url("missing.bin").absoluteString,
             nginx.url("small.json").absoluteString, "--output-dir", directory.path, "--parallel", "2"])
        #expect(outcome.status == 9, "the 404's status: \(outcome.error)")
        #expect(try filesAreIdentical(directory.appendingPathComponent("medium.bin"), nginx.root.appendingPathComponent("medium.bin")))
        #expect(try filesAreIdentical(directory.appendingPathComponent("small.json"), nginx.root.appendingPathComponent("small.json")))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("missing.bin").path))
        #expect(outcome.error.contains("3 downloads: 2 succeeded, 1 failed"), "\(outcome.error)")
        #expect(outcome.error.contains("missing.bin was not saved"), "\(outcome.error)")
    }

    @Test func anInputFileNamesItsFilesAndTwoDownloadsToOneFileAreRefused() async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.file("out")
        let list = scratch.file("list.txt")
        try Data("""
            # a comment, then a blank line

            \(nginx.url("small.json").absoluteString)\tfirst.json
            \(nginx.url("medium.bin").absoluteString)
            \(nginx.url("small.json").absoluteString)\tfirst.json

            """.utf8).write(to: list)
        for source in ["file", "standard input"] {
            try? FileManager.default.removeItem(at: directory)
            let arguments = ["get", "-i", source == "file" ? list.path : "-", "--output-dir", directory.path, "--parallel", "1", "-q"]
            let outcome = try await offThePool { try PotatoProcess(arguments, input: source == "file" ? nil : list).wait() }
            #expect(outcome.status == 19, "\(source): the duplicate's status: \(outcome.error)")
            #expect(outcome.error.contains("another download of this batch writes"), "\(source): \(outcome.error)")
            #expect(try filesAreIdentical(directory.appendingPathComponent("first.json"), nginx.root.appendingPathComponent("small.json")))
            #expect(try filesAreIdentical(directory.appendingPathComponent("medium.bin"), nginx.root.appendingPathComponent("medium.bin")))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["first.json", "medium.bin"])
        }
    }

    @Test func remoteNamesAreTheURLsLastSegmentMadeSafe() async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let single = try await offThePool { try PotatoProcess(["get", "-O", nginx.url("small.json").absoluteString, "-q"], in: scratch.url).wait() }
        #expect(single.status == 0, "\(single.error)")
        #expect(try filesAreIdentical(scratch.file("small.json"), nginx.root.appendingPathComponent("small.json")))
        // A name that would climb out of the directory, or hide as a dot file, cannot.
        let base = nginx.baseURL.absoluteString
        let outcome = try await PotatoProcess.run(
            ["get", base + "/%2E%2E%2Fescape.json", base + "/.hidden", "--output-dir", scratch.file("dir").path, "-q"])
        #expect(outcome.status == 9, "both are 404s: \(outcome.error)")
        #expect(outcome.error.contains("dir/_._escape.json"), "\(outcome.error)")
        #expect(outcome.error.contains("dir/_hidden"), "\(outcome.error)")
    }

    @Test func whatABatchCannotHaveIsAUsageError() async throws {
        let url = "http://127.0.0.1:9/a"
        for arguments in [[url, url, "-o", "/tmp/x"], [url, url, "--json"], [url, url, "--checksum", "md5=d41d8cd98f00b204e9800998ecf8427e"],
                          [url, url, "-d", "x=1"], [url, url, "-O", "--parallel", "0"], [url, url, "-O", "--mirror", url],
                          [url, url]] {
            let outcome = try await PotatoProcess.run(["get"] + arguments)
            #expect(outcome.status == 2, "\(arguments): \(outcome.error)")
        }
        let missing = try await PotatoProcess.run(["get", "-i", "/nonexistent/list.txt", "-O"])
        #expect(missing.status == 2, "\(missing.error)")
        #expect(missing.error.contains("cannot read the input file"), "\(missing.error)")
    }
}
