import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A body file that changes size while it is sent, on both engines: the server holds the body
/// back after the head (see `BodyHoldingServer`), the test changes the file, then the server reads.
///
/// - A file that grows is sent to the length announced and not a byte further: a line appended
///   meanwhile must not reach the server after the body, where it would be read as the next
///   request on the connection (request smuggling).
/// - A file that shrinks fails the call at once with `.bodyFileChanged`, rather than leave the
///   server waiting for bytes that never come until a timeout.
@Suite struct BodyFileChangeTests {
    /// Large enough that the client is still reading the file when it changes: the socket
    /// buffers between the two hold a few MiB at most.
    static let size = 16 << 20
    static let smuggled = Data("\r\nGET /smuggled HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)

    struct Reply: Decodable, Sendable {
        let length: Int
    }

    /// Writes a file of ``size`` bytes (a 64 KiB pattern, repeated) off the cooperative pool:
    /// making 16 MiB a byte at a time there would starve every test running beside it.
    static func writeLargeFile(_ file: URL) async throws {
        try await offThePool {
            let block = patternedData(count: 64 << 10)
            for index in 0..<(size / block.count) { try write(block, to: file, appending: index > 0) }
        }
    }

    /// Writes (or appends) `data` to `file` through a close-on-exec descriptor: no child process
    /// a test starts meanwhile inherits it.
    static func write(_ data: Data, to file: URL, appending: Bool) throws {
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_CLOEXEC | (appending ? O_APPEND : O_TRUNC), 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { _ = close(descriptor) }
        try FileHandle(fileDescriptor: descriptor, closeOnDealloc: false).write(contentsOf: data)
    }

    /// Sends `file` with `send` (a call started on the holding server's `path`), runs `change`
    /// once the server has the head, then lets the server read.
    static func sendChanging<Content: Sendable>(
        _ path: String, server: BodyHoldingServer, start: () -> Call<Content>, change: () throws -> Void
    ) async throws -> Result<Content, HotPotatoError> {
        let call = start()
        let arrived = try await server.waitForHead(path)
        try #require(arrived, "the head arrived")
        try change()
        server.release(path)
        do {
            return .success(try await call.response().content)
        } catch {
            return .failure(error)
        }
    }

    @Test(arguments: allEngines, [false, true])
    func aFileThatGrowsIsSentToItsAnnouncedLengthOnly(engine: Session.Engine, inAForm: Bool) async throws {
        let server = try await TestServers.bodyHolding()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("growing.bin")
        try await Self.writeLargeFile(file)
        let path = "/hold/grow-\(engine)-\(inAForm)-\(UUID().uuidString)"
        let session = testSession(engine: engine)
        var form = MultipartFormData()
        form.append(fileAt: file, name: "file")
        let request = session.put(server.url(path))
        let body = inAForm ? request.body(multipart: form) : request.body(fileAt: file)
        let announced = inAForm ? try #require(BodySegment.totalLength(try form.segments())) : Int64(Self.size)
        let outcome = try await Self.sendChanging(path, server: server, start: { body.as(Reply.self).start() }) {
            try Self.write(Self.smuggled, to: file, appending: true)
        }
        let reply = try outcome.get()
        #expect(Int64(reply.length) == announced)
        let record = try #require(try await server.finishedRecord(path))
        #expect(record.contentLength.map(Int64.init) == announced)
        #expect(Int64(record.bodyLength) == announced)
        #expect(record.excess.isEmpty, "bytes past the announced body: \(String(decoding: record.excess.prefix(200), as: UTF8.self))")
    }

    @Test(arguments: allEngines, [false, true])
    func aFileThatShrinksFailsAtOnce(engine: Session.Engine, inAForm: Bool) async throws {
        let server = try await TestServers.bodyHolding()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("shrinking.bin")
        try await Self.writeLargeFile(file)
        let path = "/hold/shrink-\(engine)-\(inAForm)-\(UUID().uuidString)"
        // The call must fail for the file, long before this idle timeout.
        let session = testSession(engine: engine, timeout: 30)
        var form = MultipartFormData()
        form.append(fileAt: file, name: "file")
        let request = session.put(server.url(path))
        let body = inAForm ? request.body(multipart: form) : request.body(fileAt: file)
        let outcome = try await Self.sendChanging(path, server: server, start: { body.asData().start() }) {
            guard truncate(file.path, 1 << 20) == 0 else { throw POSIXError(.EIO) }
        }
        guard case .failure(let error) = outcome else {
            Issue.record("a file that shrank was sent without failing")
            return
        }
        #expect(error.code == .bodyFileChanged, "\(error)")
        #expect(error.path == file.resolvingSymlinksInPath().path)
        #expect(error.limit == Int64(Self.size))
        // Where the reader found the file's end: at the new size, or past it when more had been read.
        #expect(error.byteCount.map { $0 >= 1 << 20 && $0 < Int64(Self.size) } == true, "\(String(describing: error.byteCount))")
    }
}
