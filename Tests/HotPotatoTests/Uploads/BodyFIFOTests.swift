import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A FIFO as the body (a file, or a file part of a form), on both engines: its bytes are sent as
/// its writer writes them, chunked; a FIFO without a writer, or with one that writes nothing,
/// is a body that does not come, and the request's idle timeout ends the call with `.timedOut`,
/// as it ends one whose response does not come. Nothing waits forever in `open(2)`.
@Suite struct BodyFIFOTests {
    struct EchoReply: Decodable, Sendable {
        let length: Int
        let chunked: Bool
        let complete: Bool
    }

    /// A FIFO in a scratch directory of its own.
    static func makeFIFO() throws -> (scratch: ScratchDirectory, fifo: URL) {
        let scratch = try ScratchDirectory()
        let fifo = scratch.file("body.fifo")
        guard mkfifo(fifo.path, 0o600) == 0 else { throw POSIXError(.EIO) }
        return (scratch, fifo)
    }

    /// Lets go of anything still waiting for a writer of `fifo` (on code that opens it blocking),
    /// so that a failed test does not leave a thread stuck.
    static func releaseWaitingReaders(_ fifo: URL) {
        let writer = open(fifo.path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        if writer >= 0 { _ = close(writer) }
    }

    /// Opens `fifo` for writing once a reader has it open, waiting at most `seconds` (`-1` then):
    /// a blocking `open` would wait forever for a request that failed before reading its body.
    static func openForWriting(_ fifo: URL, seconds: TimeInterval = 60) -> Int32 {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let writer = open(fifo.path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            if writer >= 0 {
                _ = fcntl(writer, F_SETFL, fcntl(writer, F_GETFL) & ~O_NONBLOCK)
                return writer
            }
            guard errno == ENXIO, Date() < deadline else { return -1 }
            usleep(10_000)
        }
    }

    static func request(_ session: Session, _ url: URL, fifo: URL, inAForm: Bool) -> Request<Accumulator<Data>> {
        guard inAForm else { return session.put(url).body(fileAt: fifo) }
        var form = MultipartFormData()
        form.append("before", name: "field")
        form.append(fileAt: fifo, name: "file", fileName: "body.txt", contentType: "text/plain")
        return session.post(url).body(multipart: form)
    }

    @Test(arguments: allEngines, [false, true])
    func aFIFOWithoutAWriterTimesOut(engine: Session.Engine, inAForm: Bool) async throws {
        let server = try await TestServers.retry()
        let (scratch, fifo) = try Self.makeFIFO()
        defer { Self.releaseWaitingReaders(fifo); scratch.remove() }
        let session = testSession(engine: engine, timeout: 1)
        let path = "/echo/fifo-nowriter-\(engine)-\(inAForm)-\(UUID().uuidString)"
        let error = Locked<HotPotatoError?>(nil)
        let inTime = await finishes(within: 30) {
            let failure = await expectFailure { try await Self.request(session, server.url(path), fifo: fifo, inAForm: inAForm).content }
            error.withLock { $0 = failure }
        }
        #expect(inTime, "the call ended within 30 s of a 1 s idle timeout")
        #expect(error.withLock { $0?.code } == .timedOut, "\(String(describing: error.withLock { $0 }))")
    }

    @Test(arguments: allEngines, [false, true])
    func aSilentWriterTimesOut(engine: Session.Engine, inAForm: Bool) async throws {
        let server = try await TestServers.retry()
        let (scratch, fifo) = try Self.makeFIFO()
        defer { scratch.remove() }
        // A writer that holds the FIFO open and writes nothing (O_RDWR never blocks on a FIFO).
        let writer = open(fifo.path, O_RDWR | O_CLOEXEC)
        try #require(writer >= 0)
        defer { _ = close(writer) }
        let session = testSession(engine: engine, timeout: 1)
        let path = "/echo/fifo-silent-\(engine)-\(inAForm)-\(UUID().uuidString)"
        let error = Locked<HotPotatoError?>(nil)
        let inTime = await finishes(within: 30) {
            let failure = await expectFailure { try await Self.request(session, server.url(path), fifo: fifo, inAForm: inAForm).content }
            error.withLock { $0 = failure }
        }
        #expect(inTime, "the call ended within 30 s of a 1 s idle timeout")
        #expect(error.withLock { $0?.code } == .timedOut, "\(String(describing: error.withLock { $0 }))")
    }

    /// A writer already waiting to open the FIFO (`cmd > fifo &`, then potato -T fifo) is let go
    /// only by the request's reader. Making the body opened the FIFO to look at it and closed it
    /// at once: that let the writer's `open` return, and its first write, with no reader left,
    /// killed it (`SIGPIPE`) — the request then waited for bytes that never came, and timed out.
    @Test(arguments: allEngines)
    func aWriterWaitingBeforeTheBodyIsMadeIsLetGoByTheRequestAlone(engine: Session.Engine) async throws {
        let server = try await TestServers.retry()
        let (scratch, fifo) = try Self.makeFIFO()
        defer { Self.releaseWaitingReaders(fifo); scratch.remove() }
        let content = patternedData(count: 50_000)
        let opened = Locked(false)
        let started = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        Thread {
            started.signal()
            let writer = open(fifo.path, O_WRONLY | O_CLOEXEC)
            opened.withLock { $0 = true }
            if writer >= 0 {
                _ = go.wait(timeout: .now() + 30)
                try? FileHandle(fileDescriptor: writer, closeOnDealloc: false).write(contentsOf: content)
                _ = close(writer)
            }
            done.signal()
        }.start()
        started.wait()
        usleep(50_000)
        _ = try RequestBody.fileSegment(fifo)
        usleep(100_000)
        guard !opened.withLock({ $0 }) else {
            Issue.record("making the body let the waiting writer open the FIFO")
            let reader = open(fifo.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            go.signal()
            _ = done.wait(timeout: .now() + 10)
            if reader >= 0 { _ = close(reader) }
            return
        }
        let session = testSession(engine: engine)
        let path = "/echo/fifo-waiting-writer-\(engine)-\(UUID().uuidString)"
        let call = session.put(server.url(path)).body(fileAt: fifo).start()
        go.signal()
        _ = try await call.response()
        _ = done.wait(timeout: .now() + 10)
        let record = try #require(server.records(path).first)
        #expect(sameBytes(record.body, content))
    }

    /// A writer that comes after the request started, writes, and closes: its bytes are the body.
    @Test(arguments: allEngines, [false, true])
    func aFIFOIsSentAsItsWriterWrites(engine: Session.Engine, inAForm: Bool) async throws {
        let server = try await TestServers.retry()
        let (scratch, fifo) = try Self.makeFIFO()
        defer { Self.releaseWaitingReaders(fifo); scratch.remove() }
        let content = patternedData(count: 200_000)
        let session = testSession(engine: engine)
        let path = "/echo/fifo-writer-\(engine)-\(inAForm)-\(UUID().uuidString)"
        let call = Self.request(session, server.url(path), fifo: fifo, inAForm: inAForm).start()
        // Opening for writing waits for the request's reader; then the bytes go in halves.
        try await offThePool {
            let writer = Self.openForWriting(fifo)
            guard writer >= 0 else { throw POSIXError(.ENXIO) }
            defer { _ = close(writer) }
            for half in [content.prefix(100_000), content.suffix(100_000)] {
                try FileHandle(fileDescriptor: writer, closeOnDealloc: false).write(contentsOf: half)
                usleep(50_000)
            }
        }
        _ = try await call.response()
        let record = try #require(server.records(path).first)
        #expect(record.chunked, "a FIFO has no length to announce")
        if inAForm {
            let body = String(decoding: record.body, as: UTF8.self)
            #expect(body.contains("name=\"field\"\r\n\r\nbefore\r\n"))
            #expect(record.body.range(of: content) != nil, "the FIFO's bytes are the file part")
        } else {
            #expect(sameBytes(record.body, content))
        }
    }
}
