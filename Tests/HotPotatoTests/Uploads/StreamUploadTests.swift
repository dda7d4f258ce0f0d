import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Bodies streamed from an `AsyncSequence` or an `InputStream`, against the tests' own server
/// (`RetryServer`'s `/echo/…`), which takes chunked bodies (httpbin's Werkzeug answers them 501)
/// and keeps the bytes it got: each compared byte for byte, with its framing.
@Suite struct StreamUploadTests {
    struct EchoReply: Decodable, Sendable {
        let length: Int
        let chunked: Bool
        let complete: Bool
    }

    /// `count` elements of the body `pattern(count:)` describes, yielded up front.
    static func elements(count: Int) -> AsyncStream<Data> {
        AsyncStream { continuation in
            for index in 0..<count { continuation.yield(element(index)) }
            continuation.finish()
        }
    }

    static func element(_ index: Int) -> Data { Data(String(format: "%07d;", index).utf8) + patternedData(count: index % 97) }

    static func expectedBody(count: Int) -> Data { (0..<count).reduce(into: Data()) { $0 += element($1) } }

    /// A unique echo path.
    static func echoPath(_ name: String, _ engine: Session.Engine) -> String { "/echo/\(name)-\(engine)-\(UUID().uuidString)" }

    @Test(arguments: allEngines, [false, true])
    func asyncSequenceBody(engine: Session.Engine, announcesLength: Bool) async throws {
        let session = testSession(engine: engine)
        let server = try await TestServers.retry()
        let expected = Self.expectedBody(count: 2_000)
        let path = Self.echoPath("sequence", engine)
        let reply = try await session.put(server.url(path))
            .body(stream: Self.elements(count: 2_000), length: announcesLength ? Int64(expected.count) : nil, contentType: "application/octet-stream")
            .as(EchoReply.self).content
        let record = try #require(server.records(path).first)
        #expect(reply.complete)
        #expect(sameBytes(record.body, expected))
        #expect(record.contentType == "application/octet-stream")
        // Both engines announce a length they are given, and send the body chunked without one.
        let chunked = !announcesLength
        #expect(record.chunked == chunked)
        #expect(record.contentLength == (chunked ? nil : String(expected.count)))
    }

    @Test(arguments: allEngines, [false, true])
    func inputStreamBody(engine: Session.Engine, announcesLength: Bool) async throws {
        let session = testSession(engine: engine)
        let server = try await TestServers.retry()
        let expected = patternedData(count: 300_000)
        let path = Self.echoPath("input-stream", engine)
        let reply = try await session.post(server.url(path))
            .body(stream: InputStream(data: expected), length: announcesLength ? Int64(expected.count) : nil)
            .as(EchoReply.self).content
        #expect(reply.complete)
        #expect(sameBytes(server.records(path).first?.body, expected))
        #expect(server.records(path).first?.chunked == !announcesLength)
    }

    @Test(arguments: allEngines) func anEmptyStreamSendsAnEmptyBody(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let server = try await TestServers.retry()
        let path = Self.echoPath("empty", engine)
        let reply = try await session.put(server.url(path)).body(stream: Self.elements(count: 0)).as(EchoReply.self).content
        #expect(reply.length == 0)
        #expect(reply.complete)
    }

    /// A stream that produces more or fewer bytes than announced fails the call rather than send
    /// a body that does not match its `Content-Length`.
    @Test(arguments: allEngines, [-1, 1])
    func aStreamThatBreaksItsLengthFails(engine: Session.Engine, difference: Int) async throws {
        let session = testSession(engine: engine)
        let server = try await TestServers.retry()
        let actual = Self.expectedBody(count: 50).count
        let error = await expectFailure {
            try await session.put(server.url(Self.echoPath("length", engine)))
                .body(stream: Self.elements(count: 50), length: Int64(actual + difference)).asData().content
        }
        #expect(error?.code == .invalidRequest, "\(String(describing: error))")
        #expect(error?.reason.contains("announced") == true, "\(String(describing: error))")
    }

    struct Broken: Error {}

    @Test(arguments: allEngines) func anErrorOfTheSequenceFailsTheCall(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let server = try await TestServers.retry()
        let failing = AsyncThrowingStream<Data, any Error> { continuation in
            continuation.yield(Data("some bytes".utf8))
            continuation.finish(throwing: Broken())
        }
        let error = await expectFailure {
            try await session.put(server.url(Self.echoPath("throws", engine))).body(stream: failing).asData().content
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.underlying is Broken)
    }

    /// The sequence is pulled only as the engine sends: with the call cancelled while the second
    /// element is being made, the sequence is not drained. On the libcurl engine only: on the
    /// URLSession engine a stream that waits for its producer holds FoundationNetworking's one work
    /// queue, and every URLSession transfer of the process (the suites running beside this one)
    /// would wait with it. The bound itself is the same code on both (see OneShotBodyTests).
    @Test(.enabled(if: Session.Engine.curl.isAvailable)) func theSequenceIsPulledOnlyAsFastAsItIsSent() async throws {
        let engine = Session.Engine.curl
        let session = testSession(engine: engine)
        let server = try await TestServers.retry()
        let pulled = Locked(0)
        let (gate, opened) = AsyncStream.makeStream(of: Void.self)
        let chunks = AsyncStream<Data> {
            let count = pulled.withLock { count in
                count += 1
                return count
            }
            // The second element waits until the test has cancelled the call.
            if count == 2 { for await _ in gate {} }
            return count <= 1_000 ? patternedData(count: 1024) : nil
        }
        let call = session.put(server.url(Self.echoPath("pulled", engine))).body(stream: chunks).asData().start()
        try await Task.sleep(nanoseconds: 200_000_000)
        call.cancel()
        opened.finish()
        _ = try? await call.response()
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(pulled.withLock { $0 } <= 3, "the sequence was pulled \(pulled.withLock { $0 }) times")
    }

    @Test(arguments: allEngines) func uploadProgressReachesTheLength(engine: Session.Engine) async throws {
        // 60 s: the producer runs on the cooperative pool, which a ThreadSanitizer pass on two
        // cores once kept from it for the default 20 (a clean-clone CI run).
        let session = testSession(engine: engine, timeout: 60) { $0.progressInterval = 0 }
        let server = try await TestServers.retry()
        let updates = Locked([UploadProgress]())
        let queue = DispatchQueue(label: "upload-progress")
        let expected = Self.expectedBody(count: 3_000)
        let call = session.put(server.url(Self.echoPath("progress", engine)))
            .body(stream: Self.elements(count: 3_000))
            .onUploadProgress(queue: queue) { progress in updates.withLock { $0.append(progress) } }
            .as(EchoReply.self).start()
        let streamed = Task { await call.uploadProgress.reduce(into: [UploadProgress]()) { $0.append($1) } }
        #expect(try await call.response().content.length == expected.count)
        await drain(queue)
        let seen = updates.withLock { $0 }
        #expect(seen.last?.bytesSent == Int64(expected.count), "\(seen.suffix(3))")
        #expect(seen.allSatisfy { $0.expectedBytes == nil })
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.bytesSent <= $1.bytesSent })
        #expect(await streamed.value.last?.bytesSent == Int64(expected.count))
    }
}
