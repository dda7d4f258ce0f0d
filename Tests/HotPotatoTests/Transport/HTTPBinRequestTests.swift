import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// The request API against httpbin: methods, bodies, headers, query items, statuses, content
/// types, charsets, gzip, redirects, ranges, delays.
@Suite(.needsHTTPBin) struct HTTPBinRequestTests {

    struct Echo: Decodable, Sendable {
        let args: [String: String]
        let headers: [String: String]
        let url: String
    }

    struct BodyEcho: Decodable, Sendable {
        let data: String
        let json: JSON?
        let headers: [String: String]
    }

    @Test(arguments: allEngines) func asData(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let bin = try await TestServers.httpbin()
        let response = try await session.get(bin.url("/bytes/4096")).asData().response()
        #expect(response.status == 200)
        #expect(response.content.count == 4096)
        #expect(response.headers["content-type"] == "application/octet-stream")
        #expect(response.timings.head != nil)
        #expect(response.timings.total >= response.timings.head ?? 0)
    }

    @Test(arguments: allEngines) func asJSONWithQueryItems(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let bin = try await TestServers.httpbin()
        let json = try await session.get(bin.url("/get")).query("q", "hot potato").query("n", "1").asJSON().content
        #expect(json["args.q"] == "hot potato")
        #expect(json["args.n"] == "1")
    }

    @Test(arguments: allEngines) func asJSONDocumentAtAKeyPath(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let bin = try await TestServers.httpbin()
        let args = try await session.get(bin.url("/get")).query("q", "hot potato").asJSONDocument(atKeyPath: "args").content
        #expect(args["q"]?.stringValue == "hot potato")
        #expect(args.keys == ["q"])
        let slides = try await session.get(bin.url("/json")).asJSONDocument().content
        #expect(slides["slideshow.slides.1.items.0"]?.stringValue == "Why <em>WonderWidgets</em> are great")
        #expect(slides.json == (try await session.get(bin.url("/json")).asJSON().content))
        // An HTML page is refused by type before anything is parsed.
        await #expect(throws: HotPotatoError.self) { try await session.get(bin.url("/html")).asJSONDocument().content }
    }

    @Test(arguments: allEngines) func decodableAtAKeyPathWithHeaders(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let bin = try await TestServers.httpbin()
        let headers = try await session.get(bin.url("/headers"))
            .header("X-Potato", "hot")
            .as([String: String].self, atKeyPath: "headers")
            .content
        #expect(headers["X-Potato"] == "hot")
    }

    @Test(arguments: allEngines) func sessionDefaultHeadersAndRequestOverrides(engine: Session.Engine) async throws {
        let bin = try await TestServers.httpbin()
        let session = testSession(engine: engine) { $0.headers = ["User-Agent": "HotPotato-Tests", "X-Default": "session"] }
        let echo = try await session.get(bin.url("/get")).header("X-Default", "request").as(Echo.self).content
        #expect(echo.headers["User-Agent"] == "HotPotato-Tests")
        #expect(echo.headers["X-Default"] == "request")
    }

    /// Both engines send the same `User-Agent` by default, on the first request and after a
    /// redirect; URLSession's own (the process name and libcurl's version) is not sent.
    @Test(arguments: allEngines) func bothEnginesSendHotPotatosUserAgentByDefault(engine: Session.Engine) async throws {
        let bin = try await TestServers.httpbin()
        let session = testSession(engine: engine)
        let direct = try await session.get(bin.url("/get")).as(Echo.self).content
        #expect(direct.headers["User-Agent"] == "HotPotato")
        let redirected = try await session.get(bin.url("/redirect-to")).query("url", "/get").as(Echo.self).content
        #expect(redirected.url.hasSuffix("/get"))
        #expect(redirected.headers["User-Agent"] == "HotPotato")
        let own = try await session.get(bin.url("/get")).header("User-Agent", "spud/2").as(Echo.self).content
        #expect(own.headers["User-Agent"] == "spud/2")
    }

    @Test(arguments: allEngines) func postData(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let bin = try await TestServers.httpbin()
        let echo = try await session.post(bin.url("/post")).body(Data("raw bytes".utf8), contentType: "text/plain")
            .as(BodyEcho.self).content
        #expect(echo.data == "raw bytes")
        #expect(echo.headers["Content-Type"] == "text/plain")
    }

    @Test(arguments: allEngines) func postEncodableAsJSON(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        struct Item: Codable, Sendable { let name: String; let count: Int }
        let bin = try await TestServers.httpbin()
        let echo = try await session.post(bin.url("/post")).body(json: Item(name: "spud", count: 3)).as(BodyEcho.self).content
        #expect(echo.json?["name"] == "spud")
        #expect(echo.json?["count"] == 3)
        #expect(echo.headers["Content-Type"] == "application/json")
    }

    @Test(arguments: allEngines) func putFileBody(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let bin = try await TestServers.httpbin()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("upload.txt")
        try Data("from a file".utf8).write(to: file)
        let echo = try await session.put(bin.url("/put")).body(fileAt: file, contentType: "text/plain").as(BodyEcho.self).content
        #expect(echo.data == "from a file")
    }

    @Test(arguments: allEngines) func unreadableBodyFileIsAnInvalidRequest(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let bin = try await TestServers.httpbin()
        let error = await expectFailure { try await session.put(bin.url("/put")).body(fileAt: URL(fileURLWithPath: "/nonexistent/file")).response() }
        #expect(error?.code == .invalidRequest)
        #expect(error?.path == "/nonexistent/file")
    }

    @Test(arguments: allEngines, [(HTTPMethod.patch, "/patch"), (.delete, "/delete"), (.put, "/put"), (.post, "/post"), (.get, "/get")])
    func methods(engine: Session.Engine, route: (method: HTTPMethod, path: String)) async throws {
        let (method, path) = route
        let session = testSession(engine: engine)
        let bin = try await TestServers.httpbin()
        let response = try await session.request(method, bin.url(path)).asJSON().response()
        #expect(response.status == 200, "httpbin answers 405 to the wrong method")
        #expect(response.content["url"]?.stringValue?.hasSuffix(path) == true)
    }

    @Test(arguments: allEngines) func headRequestHasNoBody(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let bin = try await TestServers.httpbin()
        let response = try await session.head(bin.url("/get")).asJSON().response()
        #expect(response.status == 200)
        #expect(response.content == .null)
        #expect(response.head.requestMethod == "HEAD")
    }

    @Test(arguments: allEngines) func noContentReadsAsEmpty(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let bin = try await TestServers.httpbin()
        #expect(try await session.get(bin.url("/status/204")).asJSON().content == .null)
        #expect(try await session.get(bin.url("/status/204")).asString().content == "")
    }

    @Test(arguments: allEngines) func unacceptableStatusCarriesTheHead(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let bin = try await TestServers.httpbin()
        let error = try #require(await expectFailure { try await session.get(bin.url("/status/404")).asJSON().response() })
        #expect(error.code == .unacceptableStatus)
        #expect(error.status == 404)
        #expect(error.head?.url?.path == "/status/404")
    }

    @Test(arguments: allEngines) func acceptedStatusesCanBeAdjusted(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let bin = try await TestServers.httpbin()
        let response = try await session.get(bin.url("/status/418")).accepting(statusCodes: [418]).asString().response()
        #expect(response.status == 418)
        #expect(response.content.contains("teapot"))
        // The adjustment survives a later change of handler, in either order.
        #expect(try await session.get(bin.url("/status/418")).asData().accepting(statusCodes: 400...499).response().status == 418)
        // A half-open range, its upper bound left out.
        #expect(try await session.get(bin.url("/status/418")).asData().accepting(statusCodes: 400..<500).response().status == 418)
        let error = await expectFailure { try await session.get(bin.url("/status/418")).asData().accepting(statusCodes: 400..<418).response() }
        #expect(error?.code == .unacceptableStatus)
    }

    @Test(arguments: allEngines) func htmlIsNotParsedAsJSONAndItsBodyIsKept(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let bin = try await TestServers.httpbin()
        let error = try #require(await expectFailure { try await session.get(bin.url("/html")).asJSON().response() })
        #expect(error.code == .unacceptableContentType)
        #expect(error.errorBody?.text.contains("Herman Melville") == true)
        #expect(error.errorBody?.isTruncated == false)
        // …unless the type is accepted explicitly, when it fails as what it is: invalid JSON.
        let invalid = await expectFailure { try await session.get(bin.url("/html")).asJSON().acceptingAnyContentType().response() }
        #expect(invalid?.code == .invalidJSON)
        #expect(invalid?.intermediate?.text.contains("Herman Melville") == true)
    }

    @Test(arguments: allEngines) func errorBodyIsBounded(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let bin = try await TestServers.httpbin()
        let error = try #require(await expectFailure {
            try await session.get(bin.url("/html")).asJSON().errorBodyLimit(100).response()
        })
        #expect(error.errorBody?.data.count == 100)
        #expect(error.errorBody?.isTruncated == true)
    }

    @Test(arguments: allEngines) func utf8AndDeclaredCharsets(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let bin = try await TestServers.httpbin()
        let text = try await session.get(bin.url("/encoding/utf8")).asString().content
        #expect(text.contains("∮ E⋅da = Q"))
        let fault = try await TestServers.fault()
        #expect(try await session.get(fault.url("/text?charset=iso-8859-1")).asString().content == "Grüße, Zoë")
        #expect(try await session.get(fault.url("/text?charset=utf-16le")).asString().content == "Grüße, Zoë")
    }

    /// Basic credentials that httpbin checks: accepted with the right password (a non-ASCII one
    /// and a colon in it included), the server's 401 with a wrong one, and a user name with a
    /// colon refused before anything is sent.
    @Test(arguments: allEngines) func basicAuthentication(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let bin = try await TestServers.httpbin()
        let url = bin.url("/basic-auth/spud/p%C3%BCr%C3%A9e:1")
        let accepted = try await session.get(url)
            .header("Authorization", "Bearer replaced")
            .basicAuthentication(user: "spud", password: "pürée:1")
            .asJSON().content
        #expect(accepted["authenticated"] == true)
        #expect(accepted["user"] == "spud")

        let refused = await expectFailure { try await session.get(url).basicAuthentication(user: "spud", password: "mash").asJSON().content }
        #expect(refused?.code == .unacceptableStatus)
        #expect(refused?.status == 401)

        let invalid = await expectFailure {
            try await session.get(url).basicAuthentication(user: "sp:ud", password: "pürée:1").asJSON().content
        }
        #expect(invalid?.code == .invalidRequest)
        #expect(invalid?.reason.contains("colon") == true)
        // Later credentials replace the ones that could not be sent, as their header would.
        let replaced = try await session.get(url).basicAuthentication(user: "sp:ud", password: "x")
            .basicAuthentication(user: "spud", password: "pürée:1").asJSON().content
        #expect(replaced["authenticated"] == true)
    }

    @Test(arguments: allEngines) func gzipIsDecodedAndProgressHasNoExpectedLength(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let bin = try await TestServers.httpbin()
        let updates = Locked([TransferProgress]())
        let queue = DispatchQueue(label: "progress")
        let json = try await session.get(bin.url("/gzip")).onProgress(queue: queue) { progress in updates.withLock { $0.append(progress) } }
            .asJSON().content
        #expect(json["gzipped"] == true)
        await drain(queue)  // the updates are on their way, queued before the call completed
        let seen = updates.withLock { $0 }
        #expect(!seen.isEmpty)
        #expect(seen.allSatisfy { $0.expectedBytes == nil }, "a compressed body's declared length is not what arrives")
    }

    @Test(arguments: allEngines) func jsonLinesStream(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let bin = try await TestServers.httpbin()
        let text = try await session.get(bin.url("/stream/20")).asString().content
        let lines = text.split(separator: "\n")
        #expect(lines.count == 20)
        #expect(lines.allSatisfy { $0.hasPrefix("{") })
    }

    @Test(arguments: allEngines) func dripArrivesInPiecesWithProgress(engine: Session.Engine) async throws {
        let bin = try await TestServers.httpbin()
        let updates = Locked([TransferProgress]())
        let queue = DispatchQueue(label: "progress")
        let session = testSession(engine: engine) { $0.progressInterval = 0 }
        let data = try await session.get(bin.url("/drip")).query("numbytes", "10").query("duration", "1").query("delay", "0")
            .onProgress(queue: queue) { progress in updates.withLock { $0.append(progress) } }
            .asData().content
        #expect(data == Data(repeating: UInt8(ascii: "*"), count: 10))
        await drain(queue)  // the updates are on their way, queued before the call completed
        let seen = updates.withLock { $0 }
        #expect(seen.count >= 3, "progress is reported as the drip arrives")
        #expect(seen.last?.bytesReceived == 10)
        #expect(seen.last?.expectedBytes == 10)
    }

    @Test(arguments: allEngines) func redirectsAreFollowed(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let bin = try await TestServers.httpbin()
        let response = try await session.get(bin.url("/redirect/3")).asJSON().response()
        #expect(response.status == 200)
        #expect(response.url?.path == "/get")
    }

    @Test(arguments: allEngines) func tooManyRedirects(engine: Session.Engine) async throws {
        let bin = try await TestServers.httpbin()
        let session = testSession(engine: engine) { $0.redirects = .follow(maximumRedirects: 2) }
        let error = await expectFailure { try await session.get(bin.url("/redirect/3")).asJSON().response() }
        #expect(error?.code == .tooManyRedirects)
        #expect(error?.limit == 2)
    }

    @Test(arguments: allEngines) func redirectsCanBeTurnedOff(engine: Session.Engine) async throws {
        let bin = try await TestServers.httpbin()
        let session = testSession(engine: engine) { $0.redirects = .follow(maximumRedirects: 0) }
        let error = await expectFailure { try await session.get(bin.url("/redirect/1")).asJSON().response() }
        #expect(error?.code == .unacceptableStatus)
        #expect(error?.status == 302)
        let response = try await session.get(bin.url("/redirect/1")).accepting(statusCodes: [302]).discardResponseContent().response()
        #expect(response.headers["Location"] == "/get")
    }

    @Test(arguments: allEngines) func byteRanges(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let bin = try await TestServers.httpbin()
        let response = try await session.get(bin.url("/range/100")).header("Range", "bytes=10-19").asString().response()
        #expect(response.status == 206)
        #expect(response.content == "klmnopqrst")
    }

    @Test(arguments: allEngines) func responseHeaders(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let bin = try await TestServers.httpbin()
        let response = try await session.get(bin.url("/response-headers")).query("X-Potato", "baked").asJSON().response()
        #expect(response.headers["x-potato"] == "baked")
    }

    /// httpbin answers after 10 s (its longest delay), the timeout is 1 s: the call fails with
    /// `.timedOut` before the answer comes. A timeout that did not fire in those 10 s would get
    /// the answer, and the call would succeed.
    @Test(arguments: allEngines) func delayBeyondTheTimeoutTimesOut(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let bin = try await TestServers.httpbin()
        let started = Date()
        let call = session.get(bin.url("/delay/10")).timeout(1).asJSON().start()
        // Timed on the threads that start and complete the call, not by this task.
        let elapsed = await completionDate(of: call).timeIntervalSince(started)
        let error = await expectFailure { try await call.response() }
        #expect(error?.code == .timedOut, "\(error.map { "\($0)" } ?? "the delayed answer came first")")
        #expect(elapsed < 10, "gave up after \(elapsed) s, not before the 10 s delay")
    }

    /// A timeout with a fraction is kept to the fraction on both engines: FoundationNetworking
    /// counts whole seconds (0.5 s fired at once, before a byte could come; 1.2 s after 1 s),
    /// and the URLSession engine keeps the limit itself.
    @Test(arguments: allEngines) func aTimeoutUnderASecondWaitsThatLongForEachByte(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let bin = try await TestServers.httpbin()
        // The head after 0.1 s, then a byte every 0.1 s: never 0.95 s without one.
        // FoundationNetworking alone ended it at once. A machine so busy that the bytes wait
        // longer than that may end it too, but never before 0.95 s.
        let started = Date()
        let dripping = session.get(bin.url("/drip")).query("numbytes", "5").query("duration", "0.5").query("delay", "0.1")
            .timeout(0.95).asData().start()
        let ended = await completionDate(of: dripping).timeIntervalSince(started)
        if let error = await expectFailure({ try await dripping.response() }) {
            #expect(error.code == .timedOut && ended >= 0.94, "ended after \(ended) s: \(error)")
        } else {
            #expect(try await dripping.response().content.count == 5)
        }
        // A server that says nothing: not before the limit.
        let silentStart = Date()
        let call = session.get(bin.url("/delay/3")).timeout(0.5).asData().start()
        let elapsed = await completionDate(of: call).timeIntervalSince(silentStart)
        let error = await expectFailure { try await call.response() }
        #expect(error?.code == .timedOut, "\(String(describing: error))")
        #expect(elapsed >= 0.49, "timed out after \(elapsed) s")
    }

    @Test(arguments: allEngines) func aFractionalTimeoutIsKeptToItsFraction(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let bin = try await TestServers.httpbin()
        let started = Date()
        let call = session.get(bin.url("/delay/5")).timeout(1.2).asJSON().start()
        let elapsed = await completionDate(of: call).timeIntervalSince(started)
        let error = await expectFailure { try await call.response() }
        #expect(error?.code == .timedOut, "\(error.map { "\($0)" } ?? "the delayed answer came first")")
        #expect(error?.reason.contains("Nothing was received or sent for 1.2 s") == true, "\(String(describing: error))")
        // Not before the limit (FoundationNetworking alone ended it after 1 s), nor by
        // FoundationNetworking's timer, which is given 2 s: by the engine's own clock.
        #expect(elapsed >= 1.19 && elapsed < 5, "gave up after \(elapsed) s")
        #expect(!(error?.underlying is URLError), "\(String(describing: error?.underlying))")
    }

    @Test(arguments: allEngines) func completionHandlerOnTheCallersQueue(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let bin = try await TestServers.httpbin()
        let queue = DispatchQueue(label: "caller")
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "caller")
        let (status, onQueue) = await withCheckedContinuation { continuation in
            session.get(bin.url("/get")).asJSON().response(queue: queue) { result in
                continuation.resume(returning: ((try? result.get())?.status, DispatchQueue.getSpecific(key: key) == "caller"))
            }
        }
        #expect(status == 200)
        #expect(onQueue)
    }
}
