import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// A body that can be replayed is sent again from its first byte — on a `307` or `308` redirect
/// and on a retry — and a one-shot body never is: the redirect fails the call with
/// `.bodyNotReplayable`, and no retry is made once it was read.
@Suite struct UploadReplayTests {
    struct Echo: Decodable, Sendable {
        let form: [String: String]
        let files: [String: String]
        let data: String
        let url: String
    }

    enum Kind: String, CaseIterable, Sendable, CustomStringConvertible {
        case data, file, multipart, form
        var description: String { rawValue }
    }

    static let text = String(repeating: "replayed from the first byte; ", count: 2_000)

    /// A request of `kind` carrying ``text``, and what httpbin must echo for it.
    static func request(_ kind: Kind, to url: URL, session: Session, scratch: ScratchDirectory) throws -> Request<Accumulator<Data>> {
        let request = session.post(url)
        switch kind {
        case .data:
            return request.body(Data(text.utf8), contentType: "text/plain")
        case .file:
            let file = scratch.file("body.txt")
            try Data(text.utf8).write(to: file)
            return request.body(fileAt: file, contentType: "text/plain")
        case .multipart:
            let file = scratch.file("part.txt")
            try Data(text.utf8).write(to: file)
            var form = MultipartFormData()
            form.append("field value", name: "field")
            form.append(fileAt: file, name: "upload")
            return request.body(multipart: form)
        case .form:
            return request.body(form: [("field", text)])
        }
    }

    static func check(_ echo: Echo, _ kind: Kind) {
        switch kind {
        case .data, .file: #expect(echo.data == text)
        case .multipart:
            #expect(echo.form["field"] == "field value")
            #expect(echo.files["upload"] == text)
        case .form: #expect(echo.form["field"] == text)
        }
    }

    @Test(.needsHTTPBin, arguments: allEngines, [307, 308])
    func replayableBodiesFollowARedirectThatKeepsThem(engine: Session.Engine, status: Int) async throws {
        let session = testSession(engine: engine) { $0.progressInterval = 0 }
        let bin = try await TestServers.httpbin()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        for kind in Kind.allCases {
            let progress = Locked([UploadProgress]())
            let queue = DispatchQueue(label: "upload-progress")
            let response = try await Self.request(kind, to: bin.url("/redirect-to"), session: session, scratch: scratch)
                .query("url", bin.url("/post").absoluteString).query("status_code", String(status))
                .onUploadProgress(queue: queue) { update in progress.withLock { $0.append(update) } }
                .as(Echo.self).response()
            #expect(response.status == 200, "\(kind)")
            #expect(response.content.url.hasSuffix("/post"), "\(kind)")
            Self.check(response.content, kind)
            await drain(queue)
            let last = progress.withLock { $0.last }
            #expect(last != nil && last?.bytesSent == last?.expectedBytes, "\(kind): \(String(describing: last))")
        }
    }

    /// A one-shot body is not sent again on a redirect that would keep it: the call fails with
    /// `.bodyNotReplayable` and the redirect's head; the redirect's target never sees a request.
    @Test(arguments: allEngines, [307, 308])
    func aOneShotBodyFailsARedirectThatWouldResendIt(engine: Session.Engine, status: Int) async throws {
        let session = testSession(engine: engine)
        let server = try await TestServers.retry()
        let name = "one-shot-\(engine)-\(status)-\(UUID().uuidString)"
        let bodies: [@Sendable (Request<Accumulator<Data>>) -> Request<Accumulator<Data>>] = [
            { $0.body(stream: Self.sequence()) }, { $0.body(stream: Self.stream()) },
        ]
        for (index, body) in bodies.enumerated() {
            let target = "/echo/\(name)-\(index)"
            let request = body(session.post(server.url("/redirect/\(name)-\(index)")).query("status", String(status)).query("location", target))
            let error = await expectFailure { try await request.response() }
            #expect(error?.code == .bodyNotReplayable, "\(String(describing: error))")
            #expect(error?.status == status)
            #expect(error?.head?.headers["Location"] == target)
            #expect(server.records(target).isEmpty)
            #expect(sameBytes(server.records("/redirect/\(name)-\(index)").first?.body, Data(Self.text.utf8)))
        }
    }

    /// A redirect that drops the body (`303`, or `302` after a `POST`) is followed with a one-shot
    /// body as with any other.
    @Test(arguments: allEngines, [302, 303])
    func aOneShotBodyFollowsARedirectThatDropsIt(engine: Session.Engine, status: Int) async throws {
        let session = testSession(engine: engine)
        let server = try await TestServers.retry()
        let target = "/echo/dropped-\(engine)-\(status)-\(UUID().uuidString)"
        let response = try await session.post(server.url("/redirect/dropped-\(UUID().uuidString)"))
            .query("status", String(status)).query("location", target)
            .body(stream: Self.sequence()).asData().response()
        #expect(response.status == 200)
        #expect(server.records(target).first?.method == "GET")
        #expect(server.records(target).first?.bodyLength == 0)
    }

    @Test(arguments: allEngines) func aReplayableBodyIsSentAgainOnARetry(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let server = try await TestServers.retry()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        for kind in [Kind.file, .multipart] {
            let path = "/status/retry-\(engine)-\(kind)-\(UUID().uuidString)"
            let request = try Self.request(kind, to: server.url(path), session: session, scratch: scratch)
            let response = try await session.put(server.url(path)).retry(RetryPolicy(maximumAttempts: 3, initialDelay: 0.01))
                .handled(by: Accumulator<Data>()).replacingBody(of: request).query("fail", "1").response()
            #expect(response.status == 200, "\(kind)")
            let records = server.records(path)
            #expect(records.count == 2, "\(kind)")
            let resent = records.count == 2 && records[0].body == records[1].body && !records[0].body.isEmpty
            #expect(resent, "\(kind)")
            if kind == .file { #expect(sameBytes(records.first?.body, Data(Self.text.utf8))) }
        }
    }

    @Test(arguments: allEngines) func aOneShotBodyIsNotRetriedOnceRead(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let server = try await TestServers.retry()
        let path = "/status/one-shot-retry-\(engine)-\(UUID().uuidString)"
        let error = await expectFailure {
            try await session.put(server.url(path)).query("fail", "1").retry(RetryPolicy(maximumAttempts: 3, initialDelay: 0.01))
                .body(stream: Self.sequence()).asData().response()
        }
        #expect(error?.code == .unacceptableStatus)
        #expect(error?.status == 503)
        #expect(error?.reason.contains("not retried") == true, "\(String(describing: error))")
        #expect(error?.attempts == 1)
        #expect(server.records(path).count == 1)
    }

    /// Nothing read yet — the connection was refused — the retry is made at once, with the same
    /// body, which the first attempt may not have let go of yet.
    @Test(arguments: allEngines) func aOneShotBodyIsRetriedWhileNothingWasRead(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let refusing = try LoopbackSocket.refusing()
        defer { refusing.close() }
        let error = await expectFailure {
            try await session.put("http://127.0.0.1:\(refusing.port)/nothing").retry(RetryPolicy(maximumAttempts: 3, initialDelay: 0))
                .body(stream: Self.sequence()).asData().response()
        }
        #expect(error?.code == .connectionRefused, "\(String(describing: error))")
        #expect(error?.attempts == 3)
    }

    @Test(arguments: allEngines) func aOneShotRequestRunsOnce(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let server = try await TestServers.retry()
        let request = session.put(server.url("/echo/once-\(engine)-\(UUID().uuidString)")).body(stream: Self.sequence())
        #expect(try await request.response().status == 200)
        let error = await expectFailure { try await request.response() }
        #expect(error?.code == .bodyNotReplayable)
    }

    /// ``text`` from an `AsyncSequence`, in a few elements.
    static func sequence() -> AsyncStream<Data> {
        AsyncStream { continuation in
            let data = Data(text.utf8)
            for start in stride(from: 0, to: data.count, by: 10_000) { continuation.yield(data[start..<min(data.count, start + 10_000)]) }
            continuation.finish()
        }
    }

    /// ``text`` from an `InputStream`.
    static func stream() -> InputStream { InputStream(data: Data(text.utf8)) }
}

extension Request {
    /// This request with the body (and `Content-Type`) of `other`.
    func replacingBody<Other>(of other: Request<Other>) -> Request {
        with { request in
            request.spec.body = other.spec.body
            if let type = other.spec.headers["Content-Type"] { request.spec.headers.replaceOrAdd(name: "Content-Type", value: type) }
        }
    }
}
