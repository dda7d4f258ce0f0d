import Foundation
@testable import HotPotato
@testable import HotPotatoTestSupport

// The README's examples, compiled with the tests so that the README cannot drift from the API.
// They are never run.

private struct User: Decodable, Sendable { let name: String }
private struct NewItem: Encodable, Sendable { let name: String }
private struct Item: Decodable, Sendable { let id: Int }
private struct Problem: Decodable, Sendable { let title: String }

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
    session.get(url).asJSON().response(queue: .main) { result in
        switch result {
        case .success(let response): print(response.content)
        case .failure(let error): print(error.serverMessage ?? error.reason)
        }
    }
}

private func readmeDownload(session: Session, url: URL, destination: URL) async throws {
    let call = session.get("https://example.com/big.iso")
        .downloadToFile(at: URL(fileURLWithPath: "/tmp/big.iso"), ifExists: .replace)
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

private func readmeErrors(session: Session, url: URL, chunks: [Data]) async {
    do {
        let user = try await session.get(url).as(User.self).content
        print(user)
    } catch {
        switch error.code {
        case .unacceptableStatus, .unacceptableContentType:
            print("HTTP \(error.status ?? 0): \(error.serverMessage ?? "no message")")
            let problem = try? error.errorBody?.decode(Problem.self)
            print(problem as Any)
        case .invalidJSON, .decodingFailed:
            print("bad JSON at line \(error.line ?? 0), column \(error.column ?? 0):", error.reason)
        case .bodyTooLarge:
            print("over \(error.limit ?? 0) bytes")
        case .connectionRefused, .hostNotFound, .timedOut, .connectionLost, .tlsFailure:
            print("network:", error.reason)
        case .truncatedBody:
            print("short body: \(error.byteCount ?? 0) of \(error.limit ?? 0) bytes")
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

private func readmeJSONAndResuming(session: Session, url: URL, data: Data, decoder: JSONDecoder, destination: URL) async throws {
    let json = try await session.get(url).asJSON().content
    let document = try await session.get(url).asJSONDocument().content
    let names = document["users"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
    let first = try document.decode(User.self, atKeyPath: "users.0")
    print(document["users.0.name"]?.stringValue ?? "", names ?? [], first, document.json)
    let users = try await session.get(url).as([User].self, atKeyPath: "data.users", using: decoder).content
    let local = try JSON(parsing: data)
    let fast = try JSON.decode([User].self, from: data, atKeyPath: "data.users")
    for try await event in session.get(url).streamJSONLines(of: Event.self) { print(event.name) }
    for try await user in session.get(url).streamJSONArray(of: User.self, atKeyPath: "users") { print(user.name) }
    let file = try await session.get(url).downloadToFile(at: destination, resumable: true).content
    print(json, users, local, fast, file, FileWriter.partialFileURL(for: destination))
}
