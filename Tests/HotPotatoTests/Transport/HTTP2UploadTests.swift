import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Request bodies over HTTP/2 on the curl engine, against nginx over TLS, which writes each PUT
/// body to the file it names (WebDAV's PUT): a file and a multipart form are read on the multi
/// thread and arrive byte for byte, several at once on one connection; a one-shot stream takes
/// the easy path and arrives too; upload progress reaches the body's length.
@Suite(.needsNginx, .needsCurlHTTP2) struct HTTP2UploadTests {
    func session(_ tls: NginxServer.TLS) -> Session {
        testSession(engine: .curl) { $0.certificateAuthorities = tls.certificateAuthority }
    }

    func target(_ tls: NginxServer.TLS, _ name: String) -> URL {
        URL(string: "https://127.0.0.1:\(tls.port)/uploads/\(name)")!
    }

    /// What nginx wrote for `name`.
    func written(_ nginx: NginxServer, _ name: String) throws -> Data {
        try Data(contentsOf: nginx.root.appendingPathComponent("uploads").appendingPathComponent(name))
    }

    static func unique(_ label: String) -> String { "\(label)-\(UUID().uuidString.prefix(8))" }

    @Test func filesUploadedAtOnceOverHTTP2ArriveWhole() async throws {
        let nginx = try await TestServers.nginx()
        let tls = try await TestServers.nginxTLS()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let session = session(tls)
        let bodies = (0..<4).map { patternedData(count: 3_000_000 + $0 * 1_000) }
        let names = bodies.indices.map { Self.unique("file\($0)") }
        for (index, body) in bodies.enumerated() { try body.write(to: scratch.file("\(index).bin")) }
        let sent = Locked([Int: Int64]())
        let progressQueue = DispatchQueue(label: "upload progress")
        let versions = try await withThrowingTaskGroup(of: HTTPVersion?.self) { group in
            for index in bodies.indices {
                group.addTask {
                    let response = try await session.put(target(tls, names[index]))
                        .body(fileAt: scratch.file("\(index).bin"), contentType: "application/octet-stream")
                        .onUploadProgress(queue: progressQueue) { progress in sent.withLock { $0[index] = max($0[index] ?? 0, progress.bytesSent) } }
                        .acceptingAnyContentType()
                        .discardResponseContent()
                        .response()
                    #expect([201, 204].contains(response.status))
                    return response.httpVersion
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(versions.allSatisfy { $0 == .http2 })
        for (index, body) in bodies.enumerated() {
            #expect(sameBytes(try written(nginx, names[index]), body), "upload \(index)")
        }
        // Each report was queued before its call completed.
        await drain(progressQueue)
        let reports = sent.withLock { $0 }
        #expect(bodies.indices.allSatisfy { reports[$0] == Int64(bodies[$0].count) }, "upload progress: \(reports)")
    }

    @Test func aMultipartFormArrivesAsAnnounced() async throws {
        let nginx = try await TestServers.nginx()
        let tls = try await TestServers.nginxTLS()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = patternedData(count: 1_000_000)
        try file.write(to: scratch.file("part.bin"))
        var form = MultipartFormData()
        form.append("spud", name: "name")
        form.append(fileAt: scratch.file("part.bin"), name: "image", fileName: "part.bin", contentType: "application/octet-stream")
        let name = Self.unique("form")
        let response = try await session(tls).put(target(tls, name)).body(multipart: form)
            .acceptingAnyContentType().discardResponseContent().response()
        #expect(response.httpVersion == .http2)
        let body = try written(nginx, name)
        #expect(body.starts(with: Data("--\(form.boundary)\r\n".utf8)))
        #expect(body.range(of: file) != nil, "the file's bytes, whole, inside the form")
        #expect(body.range(of: Data("name=\"name\"\r\n\r\nspud\r\n".utf8)) != nil)
        #expect(String(decoding: body.suffix(64), as: UTF8.self).hasSuffix("--\(form.boundary)--\r\n"))
    }

    @Test func aOneShotStreamTakesTheEasyPathAndArrives() async throws {
        let nginx = try await TestServers.nginx()
        let tls = try await TestServers.nginxTLS()
        let chunks = (0..<50).map { patternedData(count: 10_000 + $0) }
        let stream = AsyncStream<Data> { continuation in
            for chunk in chunks { continuation.yield(chunk) }
            continuation.finish()
        }
        let name = Self.unique("stream")
        let response = try await session(tls).put(target(tls, name)).body(stream: stream)
            .acceptingAnyContentType().discardResponseContent().response()
        #expect([201, 204].contains(response.status))
        #expect(sameBytes(try written(nginx, name), chunks.reduce(Data(), +)))
    }
}
