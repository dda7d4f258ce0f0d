import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// What a first black-box pass found in batches and `-o`: the input file may be a pipe and may
/// start with a byte order mark, its names stay in the output directory, `--output-dir` is made
/// for one URL too, and `-o` may name a device.
@Suite(.needsNginx) struct PotatoBatchInputTests {
    @Test func anInputFileMayBeAPipeAndStartWithAByteOrderMark() async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let fifo = scratch.file("list.fifo")
        try #require(mkfifo(fifo.path, 0o600) == 0)
        let list = "\u{FEFF}\(nginx.url("small.json").absoluteString)\n\(nginx.url("medium.bin").absoluteString)\tm.bin\n"
        // The writer blocks until potato opens the pipe; it gives up after 30 s if it never does.
        let writer = Thread {
            let descriptor = open(fifo.path, O_WRONLY | O_CLOEXEC | O_NONBLOCK)
            var opened = descriptor
            let deadline = Date().addingTimeInterval(30)
            while opened < 0, Date() < deadline {
                usleep(10_000)
                opened = open(fifo.path, O_WRONLY | O_CLOEXEC | O_NONBLOCK)
            }
            guard opened >= 0 else { return }
            _ = fcntl(opened, F_SETFL, 0)
            _ = list.withCString { write(opened, $0, strlen($0)) }
            close(opened)
        }
        writer.start()
        let directory = scratch.file("out")
        let outcome = try await PotatoProcess.run(["get", "-i", fifo.path, "--output-dir", directory.path, "-q"])
        #expect(outcome.status == 0, "\(outcome.error)")
        #expect(try filesAreIdentical(directory.appendingPathComponent("small.json"), nginx.root.appendingPathComponent("small.json")))
        #expect(try filesAreIdentical(directory.appendingPathComponent("m.bin"), nginx.root.appendingPathComponent("medium.bin")))
    }

    @Test func aNameThatLeavesTheOutputDirectoryIsRefused() async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let list = scratch.file("list.txt")
        let url = nginx.url("small.json").absoluteString
        try Data("\(url)\t../escaped.json\n\(url)\t\(scratch.file("absolute.json").path)\n\(url)\tinside.json\n\(url)\tsub/dir/deep.json\n"
            .utf8).write(to: list)
        let directory = scratch.file("out")
        let outcome = try await PotatoProcess.run(["get", "-i", list.path, "--output-dir", directory.path, "-q"])
        #expect(outcome.status == 2, "\(outcome.error)")
        #expect(outcome.error.contains("leaves the output directory"), "\(outcome.error)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("escaped.json").path))
        #expect(!FileManager.default.fileExists(atPath: scratch.file("absolute.json").path))
        #expect(try filesAreIdentical(directory.appendingPathComponent("inside.json"), nginx.root.appendingPathComponent("small.json")))
        // The directories a NAME holds are made (aria2's `out=`).
        #expect(try filesAreIdentical(directory.appendingPathComponent("sub/dir/deep.json"), nginx.root.appendingPathComponent("small.json")))
    }

    @Test func theOutputDirectoryIsMadeForOneURL() async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.file("new/dir")
        let outcome = try await PotatoProcess.run(["get", nginx.url("small.json").absoluteString, "--output-dir", directory.path, "-q"])
        #expect(outcome.status == 0, "\(outcome.error)")
        #expect(try filesAreIdentical(directory.appendingPathComponent("small.json"), nginx.root.appendingPathComponent("small.json")))
    }

    @Test func outputToADeviceIsWrittenAsItIs() async throws {
        let nginx = try await TestServers.nginx()
        let outcome = try await PotatoProcess.run(["get", nginx.url("medium.bin").absoluteString, "-o", "/dev/null", "-q"])
        #expect(outcome.status == 0, "\(outcome.error)")
        let refused = try await PotatoProcess.run(["get", nginx.url("medium.bin").absoluteString, "-o", "/dev/null", "--continue", "-q"])
        #expect(refused.status == 2, "\(refused.error)")
    }
}
