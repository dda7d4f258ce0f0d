import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// What potato sends as the body, through the built binary, on both engines: a file that changes
/// size while it is sent, a FIFO, an interrupted form upload, a body with `GET`, and `-d` in
/// curl's meaning (`@file`, `@-`, `--data-binary`, `--data-raw`).
@Suite struct PotatoBodyTests {
    /// The engine names potato takes, for the engines that can run here.
    static var engines: [String] { allEngineNames }

    /// Starts potato with `arguments` on the holding server's `path`, runs `action` once the
    /// server has the request's head, releases the server, and waits for potato to exit.
    static func whileHeld(
        _ server: BodyHoldingServer, _ path: String, _ arguments: [String], environment: [String: String] = [:],
        action: @escaping @Sendable (PotatoProcess) throws -> Void
    ) async throws -> PotatoProcess.Outcome {
        let process = try PotatoProcess(["get", server.url(path).absoluteString] + arguments, environment: environment)
        let arrived = try await server.waitForHead(path)
        if !arrived { process.send(SIGKILL) }
        try #require(arrived, "the head arrived")
        try action(process)
        server.release(path)
        return try await offThePool { try process.wait() }
    }

    @Test(arguments: PotatoBodyTests.engines, ["-T", "--data-file"])
    func aFileThatGrowsIsSentToItsLengthOnly(engine: String, option: String) async throws {
        let server = try await TestServers.bodyHolding()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("growing.bin")
        try await BodyFileChangeTests.writeLargeFile(file)
        let path = "/hold/potato-grow-\(engine)\(option)-\(UUID().uuidString)"
        let outcome = try await Self.whileHeld(server, path, [option, file.path, "--engine", engine, "-q"]) { _ in
            try BodyFileChangeTests.write(BodyFileChangeTests.smuggled, to: file, appending: true)
        }
        #expect(outcome.status == 0, "\(outcome.error)")
        let record = try #require(try await server.finishedRecord(path))
        #expect(record.bodyLength == BodyFileChangeTests.size)
        #expect(record.excess.isEmpty, "bytes past the announced body: \(String(decoding: record.excess.prefix(200), as: UTF8.self))")
    }

    @Test(arguments: PotatoBodyTests.engines, ["-T", "--data-file"])
    func aFileThatShrinksExitsWith21(engine: String, option: String) async throws {
        let server = try await TestServers.bodyHolding()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("shrinking.bin")
        try await BodyFileChangeTests.writeLargeFile(file)
        let path = "/hold/potato-shrink-\(engine)\(option)-\(UUID().uuidString)"
        // Long before the 30 s timeout: the file's end is the failure.
        let outcome = try await Self.whileHeld(server, path, [option, file.path, "--engine", engine, "--timeout", "30"]) { _ in
            guard truncate(file.path, 1 << 20) == 0 else { throw POSIXError(.EIO) }
        }
        #expect(outcome.status == 21, "\(outcome.error)")
        #expect(outcome.error.contains("became shorter"), "\(outcome.error)")
    }

    /// Ctrl-C or SIGTERM in the middle of a form upload leaves nothing behind in the temporary
    /// directory: no copy of the form is made.
    @Test(arguments: PotatoBodyTests.engines, [SIGINT, SIGTERM])
    func anInterruptedFormUploadLeavesNoCopy(engine: String, signal: Int32) async throws {
        let server = try await TestServers.bodyHolding()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("form.bin")
        try await BodyFileChangeTests.writeLargeFile(file)
        let temporary = scratch.file("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let path = "/hold/potato-interrupt-\(engine)-\(signal)-\(UUID().uuidString)"
        let outcome = try await Self.whileHeld(
            server, path, ["-F", "file=@\(file.path)", "--engine", engine], environment: ["TMPDIR": temporary.path]
        ) { process in
            process.send(signal)
        }
        #expect(outcome.status == (signal == SIGINT ? 130 : 143), "\(outcome.error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty, "nothing left in TMPDIR")
    }

    /// A FIFO that no one writes to is a body that does not come: `--timeout` ends it (exit 6),
    /// whichever option names it.
    @Test(arguments: PotatoBodyTests.engines, [["-T"], ["--data-file"], ["-F", "file=@"], ["-F", "text=<"], ["-d", "@"]])
    func aFIFOWithoutAWriterTimesOut(engine: String, option: [String]) async throws {
        let server = try await TestServers.retry()
        let (scratch, fifo) = try BodyFIFOTests.makeFIFO()
        defer { BodyFIFOTests.releaseWaitingReaders(fifo); scratch.remove() }
        let path = "/echo/potato-fifo-\(engine)-\(UUID().uuidString)"
        let arguments = option.count == 1 ? option + [fifo.path] : [option[0], option[1] + fifo.path]
        let outcome = try await PotatoProcess.run(
            ["get", server.url(path).absoluteString, "--engine", engine, "--timeout", "1"] + arguments)
        #expect(outcome.status == 6, "\(outcome.error)")
    }

    @Test(arguments: PotatoBodyTests.engines) func aGetWithDataSendsIt(engine: String) async throws {
        let server = try await TestServers.retry()
        let path = "/echo/potato-get-data-\(engine)-\(UUID().uuidString)"
        let outcome = try await PotatoProcess.run(["get", server.url(path).absoluteString, "--engine", engine, "-X", "GET", "-d", "q=spud"])
        #expect(outcome.status == 0, "\(outcome.error)")
        let record = try #require(server.records(path).first)
        #expect(record.method == "GET")
        #expect(String(decoding: record.body, as: UTF8.self) == "q=spud")
        #expect(record.contentType == "application/x-www-form-urlencoded")
    }

    @Test(arguments: [
        (["-X", "HEAD", "-d", "x"], "HEAD cannot send a body"), (["-X", "head", "-F", "a=b"], "HEAD cannot send a body"),
        (["-F", "f=@x;type=\"a\r\nb\""], "control character"), (["--proxy-header", "NoColon"], "is not \"Name: value\""),
    ])
    func aBodyOrHeaderThatCannotBeSentIsAUsageError(arguments: [String], message: String) async throws {
        let outcome = try await PotatoProcess.run(["get", "http://127.0.0.1:1/"] + arguments)
        #expect(outcome.status == 2, "\(outcome.error)")
        #expect(outcome.error.contains(message), "\(outcome.error)")
        #expect(!outcome.error.contains("\r"), "no control character is printed as it is")
    }

    /// `-d @FILE` sends the file without its line breaks, `--data-binary @FILE` byte for byte,
    /// `--data-raw @FILE` the text itself; several pieces are joined with `&`; `@-` reads
    /// standard input.
    @Test func dataOptionsAsCurlTakesThem() async throws {
        let server = try await TestServers.retry()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("data.txt")
        try Data("a=1\r\nb=2\n".utf8).write(to: file)
        let cases: [([String], String)] = [
            (["-d", "@\(file.path)"], "a=1b=2"),
            (["--data-binary", "@\(file.path)"], "a=1\r\nb=2\n"),
            (["--data-raw", "@\(file.path)"], "@\(file.path)"),
            (["-d", "x=1", "--data-ascii", "y=2", "-d", "@\(file.path)"], "x=1&y=2&a=1b=2"),
            (["-d", "@-"], "a=1b=2"),
        ]
        for (options, expected) in cases {
            let path = "/echo/potato-data-\(UUID().uuidString)"
            let outcome = try await offThePool {
                try PotatoProcess(["get", server.url(path).absoluteString] + options, input: file).wait()
            }
            #expect(outcome.status == 0, "\(options): \(outcome.error)")
            #expect(String(decoding: server.records(path).first?.body ?? Data(), as: UTF8.self) == expected, "\(options)")
            #expect(server.records(path).first?.method == "POST")
        }
        let missing = try await PotatoProcess.run(["get", server.url("/echo/potato-data-missing").absoluteString, "-d", "@/nonexistent/x"])
        #expect(missing.status == 21, "\(missing.error)")
        #expect(server.records("/echo/potato-data-missing").isEmpty)
    }
}
