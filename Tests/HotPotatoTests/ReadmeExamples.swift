import Foundation
@testable import HotPotato
@testable import HotPotatoTestSupport

// The README's examples — and those moved from it to the DocC articles, where each function
// says — compiled with the tests so that the documentation cannot drift from the API. They are
// never run.
//
private struct User: Decodable, Sendable { let name: String }
private struct NewItem: Encodable, Sendable { let name: String }
private struct Item: Decodable, Sendable { let id: Int }
private struct Problem: Decodable, Sendable { let title: String }

/// Once README's "Quick start" (now GettingStarted.md and MakingRequests.md); the completion handler is in MakingRequests.md, "Run it".
private func readmeQuickStart(session: Session, url: URL, token: String) async throws {
    let user = try await session.get("https://api.example.com/users/1").as(User.self, atKeyPath: "data").content
    let json = try await session.get(url).asJSON().content
    let text = try await session.get(url).asString().content
    let data = try await session.get(url).asData().content
    let response = try await session.post("https://api.example.com/items")
        .header("Authorization", "Bearer \(token)")
        .body(json: NewItem(name: "spud"))
        .accepting(statusCodes: [201])
        .as(Item.self)
        .response()
    print(user, json, text, data, response.status, response.headers["Location"] ?? "", response.content.id)
    do {
        let me = try await session.get("https://api.example.com/me").as(User.self).content
        print(me.name)
    } catch {
        print(error.code, error.status ?? 0, error.serverMessage ?? error.reason)
    }
    session.get(url).asJSON().response(queue: .main) { result in
        switch result {
        case .success(let response): print(response.content)
        case .failure(let error): print(error.serverMessage ?? error.reason)
        }
    }
}

/// Once README's "A large download to disk, with progress" (now DownloadingToAFile.md); the progress sequence and the cancelled
/// task are in MakingRequests.md.
private func readmeDownload(session: Session, url: URL, destination: URL) async throws {
    let call = session.get("https://example.com/big.iso")
        .downloadToFile(at: URL(fileURLWithPath: "/tmp/big.iso"), existingFilePolicy: .replace)
        .onHead { head in print("HTTP", head.status) }
        .onProgress { progress in print(progress.bytesReceived, progress.fractionCompleted ?? 0) }
        .start()
    for await progress in call.progress {
        print("\(progress.bytesReceived) of \(progress.expectedBytes.map(String.init) ?? "?")")
    }
    let file = try await call.response().content
    let task = Task { try await session.get(url).downloadToFile(at: destination).response() }
    task.cancel()
    print(file)
}

/// Uploading.md (once in the README).
private func readmeUploading(session: Session, url: URL, videoURL: URL, csv: String, records: [String]) async throws {
    var form = MultipartFormData()
    form.append("spud", name: "name")
    form.append(fileAt: URL(fileURLWithPath: "/tmp/big.iso"), name: "image")
    let reply = try await session.post("https://example.com/upload")
        .body(multipart: form)
        .onUploadProgress { print($0.bytesSent, $0.expectedBytes ?? 0) }
        .asJSON()
        .content
    form.append(Data(csv.utf8), name: "table", fileName: "table.csv", contentType: "text/csv")
    form.append(fileAt: videoURL, name: "video")
    let withProgress = try await session.post(url)
        .body(multipart: form)
        .onUploadProgress { print($0.bytesSent, $0.fractionCompleted ?? 0) }
        .asJSON()
        .content
    let searched = try await session.post(url).body(form: ["q": "hot potato", "page": "2"]).asJSON().content
    let pairs = try await session.post(url).body(form: [("q", "hot potato"), ("page", "2")]).asJSON().content
    let (chunks, continuation) = AsyncStream.makeStream(of: Data.self)
    let call = session.put(url).body(stream: chunks, contentType: "application/octet-stream").start()
    for record in records { continuation.yield(Data(record.utf8)) }
    continuation.finish()
    let response = try await call.response()
    let fromStream = try await session.put(url).body(stream: InputStream(data: Data()), length: 0).asData().content
    print(reply, withProgress, searched, pairs, response.status, fromStream)
}

/// README, "The handlers"; GettingStarted.md, "Choose what is accepted" and "Download to a
/// file"; DownloadingToAFile.md, the writer made yourself.
private func readmeHandlerConstruction(session: Session, url: URL, path: URL) async throws {
    let answer = try await session.get(url).handled(by: JSONParser(gate: .init(statusCodes: [200, 404]))).content
    let small = try await session.get(url).handled(by: Accumulator(maximumBodySize: 1 << 20)).content
    let file = try await session.get(url).handled(by: FileWriter(destination: path, existingFilePolicy: .replace,
                                                                 createsIntermediateDirectories: true, resumable: true)).content
    let text = try await session.get(url).handled(by: StringConverter(gate: .any)).content
    print(answer, small, file, text)
}

/// WritingYourOwnHandler.md, "Implement the protocol".
private final class LineCounter: ContentHandler {
    private var lines = 0

    func prepare(for head: ResponseHead) throws {
        guard (200...299).contains(head.status) else {
            throw HotPotatoError(.unacceptableStatus, reason: "HTTP \(head.status)")
        }
    }

    func receive(_ chunk: Data) throws {
        lines += chunk.reduce(0) { $1 == 0x0A ? $0 + 1 : $0 }
    }

    func finish() throws -> Int { lines }

    func cleanUp() {}
}

private func readmeOwnHandler(session: Session, url: URL) async throws {
    let count = try await session.get(url).handled(by: LineCounter()).content
    print(count)
}

/// MakingRequests.md, "Redirects", and the header left out.
private func readmeRedirectsAndHeaders(session: Session, url: URL) async throws {
    let response = try await session.get(url).redirects(.doNotFollow).acceptingAnyStatus().asData().response()
    let location = response.head.headers["Location"]
    let text = try await session.get(url).withoutHeader("User-Agent").withoutHeader("Accept").asString().content
    print(location as Any, text)
}

/// HandlingErrors.md (the switch) and GettingStarted.md, "Feed it a response" (the driver), both
/// moved there from the README.
private func readmeErrors(session: Session, url: URL, chunks: [Data]) async {
    do {
        let user = try await session.get(url).as(User.self).content
        print(user)
    } catch {
        switch error.code {
        case let code where code.isRejection:
            print("HTTP \(error.status ?? 0): \(error.serverMessage ?? "no message")")
            let problem = try? error.errorBody?.decode(Problem.self)
            print(problem as Any)
        case .invalidJSON:
            print("bad JSON at line \(error.line ?? 0), column \(error.column ?? 0):", error.reason)
        case .decodingFailed:
            print("not a User:", error.reason)
        case .bodyTooLarge:
            print("over \(error.limit ?? 0) bytes")
        case .connectionRefused, .hostNotFound, .timedOut, .connectionLost, .tlsFailure:
            print("network:", error.reason)
        case .truncatedBody:
            print("short body: \(error.byteCount ?? 0) bytes", error.limit.map { "of \($0)" } ?? "")
        default:
            print(error)
        }
    }
    let driver = ResponseDriver(handler: JSONParser(decoding: User.self, atKeyPath: "data"))
    driver.receive(head: ResponseHead(status: 200, headers: ["Content-Type": "application/json"]))
    for chunk in chunks {
        guard driver.receive(chunk) else { break }
    }
    print((try? driver.finish().get()) as Any)
}

private struct Event: Decodable, Sendable { let name: String }

/// WorkingWithJSON.md and DownloadingToAFile.md ("Resuming an interrupted download"), moved there
/// from the README.
private func readmeJSONAndResuming(session: Session, url: URL, decoder: JSONDecoder, destination: URL) async throws {
    let json = try await session.get(url).asJSON().content
    let document = try await session.get(url).asJSONDocument().content
    let names = document["users"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
    let first = try document.decode(User.self, atKeyPath: "users.0")
    print(names ?? [], first, document.json)
    let users = try await session.get(url).as([User].self, atKeyPath: "data.users", using: decoder).content
    for try await event in session.get(url).streamJSONLines(of: Event.self) { print(event.name) }
    for try await user in session.get(url).streamJSONArray(of: User.self, atKeyPath: "users") { print(user.name) }
    let file = try await session.get(url).downloadToFile(at: destination, resumable: true).content
    print(json, users, file, FileWriter.partialFileURL(for: destination))
}

/// Once README's "Retries, credentials, a view into every request, redirects and proxies" (the proxy
/// line is in `readmeProxy`); RetryingRequests.md, InterceptorsAndAuthentication.md and
/// MakingRequests.md.
private func readmeResilience(url: URL, token: BearerCredential, refresh: @escaping @Sendable (BearerCredential?) async throws -> BearerCredential) async throws {
    var configuration = Session.Configuration()
    configuration.retryPolicy = RetryPolicy(maximumAttempts: 5)
    configuration.interceptors = [BearerAuthenticator(credential: token) { try await refresh($0) }]
    configuration.eventMonitors = [EventLogger()]
    configuration.proxy = .environment()
    let session = Session(configuration: configuration)
    let page = try await session.get(url).redirects(.doNotFollow).retry(.never).asData().response()
    let sameHostOnly = RedirectBehavior.custom { hop in
        hop.request.url?.host == hop.response.url?.host ? .follow : .doNotFollow
    }
    let followed = try await session.get(url).redirects(sameHostOnly).response()
    do {
        _ = try await session.get(url).retry(RetryPolicy()).asJSON().content
    } catch {
        print(error.attempts ?? 1, error.status ?? 0, error.serverMessage ?? "")
    }
    print(page.status, followed.status)
}

private struct Delta: Decodable, Sendable { let text: String }
private struct Prompt: Encodable, Sendable { let text: String }

/// StreamingEvents.md (once in the README).
private func readmeEvents(session: Session, url: URL, prompt: Prompt) async throws {
    for try await delta in session.post(url).body(json: prompt).streamEvents(decoding: Delta.self) {
        print(delta.text, terminator: "")
    }
    for try await event in session.get(url).streamEvents(reconnection: EventStreamReconnection()) {
        print(event.type, event.id, event.data)
    }
    for try await event in session.get(url).streamEvents() where event.type == "delta" {
        print(try event.decode(Delta.self).text)
    }
    let summary = try await session.get(url)
        .handled(by: EventStreamParser { event in print(event.data) })
        .content
    let patient = EventStreamReconnection(maximumReconnections: 10, delay: 1, reconnectsAfterEnd: false)
    let stream = session.get(url).timeout(300).streamEvents(endMarker: "bye", reconnection: patient, bufferSize: 4)
    for try await event in stream { print(event.data) }
    print(summary.eventCount, summary.lastEventID)
}

/// Cookies.md (once in the README).
private func readmeCookies(loginURL: URL, meURL: URL, pw: String) async throws {
    var configuration = Session.Configuration()
    let session = Session()
    _ = try await session.post(loginURL).body(form: ["user": "me", "password": pw]).asData().content
    let me = try await session.get(meURL).asJSON().content
    print(me, session.cookieJar?.cookies.map(\.name) ?? [])
    let jar = CookieJar()
    configuration.cookieStore = .jar(jar)
    configuration.cookieStore = .inMemory
    configuration.cookieStore = .none
    configuration.cookieStore = .httpCookieStorage(.shared)
    print(jar.cookies(for: meURL), jar.cookieHeader(for: meURL) ?? "")
}

/// SecurityAndTransportOptions.md.
private func readmeTransportControls(url: URL, secret: String, currentKey: String, nextKey: String, apiKey: String) async throws {
    var configuration = Session.Configuration()
    configuration.publicKeyPins = try PublicKeyPins(forEveryHost: ["sha256//…"])
    configuration.clientCertificate = .pem(
        certificate: URL(fileURLWithPath: "/etc/myapp/client.pem"),
        key: URL(fileURLWithPath: "/etc/myapp/client.key"))
    configuration.clientCertificate = .pkcs12(URL(fileURLWithPath: "client.p12"), password: secret)
    configuration.publicKeyPins = try PublicKeyPins(forEveryHost: [currentKey, nextKey])
        .pinning([apiKey], forHost: "api.example.com")
    var docker = Session.Configuration()
    docker.unixSocketPath = "/var/run/docker.sock"
    let info = try await Session(configuration: docker).get("http://localhost/v1.43/info").asJSON().content
    var staging = Session.Configuration()
    staging.addressOverrides = [AddressOverride(host: "api.example.com", port: 443, address: "10.0.0.7")]
    staging.localAddress = "10.0.0.2"
    let session = Session(configuration: configuration)
    let response = try await session.get(url).asData().response()
    if let phases = response.timings.phases {
        print("connect \(phases.connect ?? 0) s, TLS \(phases.tlsHandshake ?? 0) s, first byte \(phases.firstByte ?? 0) s")
    }
    print(response.timings.connection?.isReused == true ? "reused" : "new connection", info)
}
