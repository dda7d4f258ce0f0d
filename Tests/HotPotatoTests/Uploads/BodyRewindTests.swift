import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// What happens when the engine must send a body again on a new connection: a kept-alive
/// connection is dropped as the next request goes out on it, before any answer, and the library
/// under the engine retries on a new connection — libcurl rewinding the body through the seek
/// callback, FoundationNetworking asking its delegate for a new body stream.
@Suite struct BodyRewindTests {
    struct EchoReply: Decodable, Sendable {
        let length: Int
    }

    static let content = patternedData(count: 20_000)

    /// One connection per host, so that the second request reuses the first one's connection.
    static func session(_ engine: Session.Engine) -> Session {
        testSession(engine: engine) { $0.maximumConnectionsPerHost = 1 }
    }

    /// A session with a kept-alive connection to the reuse server (its `/first/<name>` answered),
    /// and a scratch directory with ``content`` in `body.bin`.
    static func reusedConnection(
        _ engine: Session.Engine
    ) async throws -> (server: ReuseServer, session: Session, scratch: ScratchDirectory, name: String) {
        let server = try await TestServers.reuse()
        let session = session(engine)
        let scratch = try ScratchDirectory()
        try content.write(to: scratch.file("body.bin"))
        let name = UUID().uuidString
        _ = try await session.get(server.url("/first/\(name)")).asData().content
        return (server, session, scratch, name)
    }

    /// libcurl rewinds a file (or bytes) and sends it whole on the new connection.
    @Test(.enabled(if: Session.Engine.curl.isAvailable), arguments: [false, true])
    func libcurlSendsAReplayableBodyAgainFromItsStart(fromFile: Bool) async throws {
        let (server, session, scratch, name) = try await Self.reusedConnection(.curl)
        defer { scratch.remove() }
        let file = scratch.file("body.bin")
        let request = session.put(server.url("/second/\(name)"))
        let reply = try await (fromFile ? request.body(fileAt: file) : request.body(Self.content)).as(EchoReply.self).content
        #expect(reply.length == Self.content.count)
        #expect(sameBytes(server.records("/second/\(name)").first, Self.content))
    }

    /// On the URLSession engine a file (or a form) is a body stream of HotPotato's own, which goes
    /// back to its first byte when FoundationNetworking asks for a new one: it is sent whole on
    /// the new connection, as on the curl engine.
    @Test func urlSessionSendsAFileAgainFromItsStart() async throws {
        let (server, session, scratch, name) = try await Self.reusedConnection(.urlSession)
        defer { scratch.remove() }
        let reply = try await session.put(server.url("/second/\(name)")).body(fileAt: scratch.file("body.bin"))
            .as(EchoReply.self).content
        #expect(reply.length == Self.content.count)
        #expect(sameBytes(server.records("/second/\(name)").first, Self.content))
    }

    /// FoundationNetworking does not rewind a body of its own, `Data` in memory (it sent nothing
    /// more, announcing the whole length, and the call waited out its timeout): the call fails at
    /// once with `.connectionLost`, and a retry sends the body whole.
    @Test func urlSessionFailsFastOnBytesAndARetrySendsThemWhole() async throws {
        let (server, session, scratch, name) = try await Self.reusedConnection(.urlSession)
        defer { scratch.remove() }
        let withBody = session.put(server.url("/second/\(name)")).body(Self.content)
        let error = await expectFailure { try await withBody.as(EchoReply.self).content }
        #expect(error?.code == .connectionLost, "\(String(describing: error))")
        _ = try await session.get(server.url("/first/\(name)")).asData().content
        let reply = try await withBody.retry(RetryPolicy(maximumAttempts: 2, initialDelay: 0.01)).as(EchoReply.self).content
        #expect(reply.length == Self.content.count)
        // Among the records, not necessarily the last: the first call's new connection, which
        // FoundationNetworking gave up with no body, is recorded (empty) when the server sees it
        // close, which a slow machine (ThreadSanitizer's) saw after the retry was recorded.
        let records = server.records("/second/\(name)")
        #expect(records.contains { sameBytes($0, Self.content) }, "\(records.map(\.count))")
    }

    /// A one-shot stream already read is not sent again from where it is: the call fails with
    /// `.bodyNotReplayable`, on both engines.
    @Test(arguments: allEngines) func aOneShotBodyThatMustBeRewoundFails(engine: Session.Engine) async throws {
        let server = try await TestServers.reuse()
        let session = Self.session(engine)
        let name = UUID().uuidString
        _ = try await session.get(server.url("/first/\(name)")).asData().content
        let error = await expectFailure {
            try await session.put(server.url("/second/\(name)")).body(stream: InputStream(data: Self.content)).asData().content
        }
        #expect(error?.code == .bodyNotReplayable, "\(String(describing: error))")
        // libcurl may have sent the head again before it asked for the body: never any of the body.
        let untouched = server.records("/second/\(name)").allSatisfy { $0.isEmpty }
        #expect(untouched, "no byte of the body reached the new connection")
    }
}
