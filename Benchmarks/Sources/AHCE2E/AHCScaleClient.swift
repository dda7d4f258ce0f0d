import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL
import ScaleKit

/// AsyncHTTPClient as the scale scenarios use it: one `HTTPClient` for the whole job, each
/// stream's body iterated and its events counted by their blank line (AsyncHTTPClient has no
/// event-stream parser), each GET's body collected.
struct AHCScaleClient: ScaleClient {
    let client: HTTPClient

    /// `perHost` sets `connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit` (8 by
    /// default); `nil` keeps every default. HTTPS trusts the harness's certificate authority
    /// besides the system's, and negotiates HTTP/2 (the default `httpVersion`).
    init(perHost: Int?) {
        var configuration = HTTPClient.Configuration()
        if let perHost { configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = perHost }
        if let authority = ProcessInfo.processInfo.environment["HOTPOTATO_E2E_CA"] {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.file(authority)]
            configuration.tlsConfiguration = tls
        }
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    func stream(_ url: URL, onEvent: @escaping @Sendable () -> Void) async throws {
        // The deadline covers the whole request, body included: far beyond any job.
        let response = try await client.execute(HTTPClientRequest(url: url.absoluteString), deadline: .now() + .hours(24))
        guard response.status == .ok else { throw ScaleClientError("status \(response.status.code)") }
        var counter = EventCounter()
        for try await buffer in response.body {
            for _ in 0..<counter.feed(buffer.readableBytesView) { onEvent() }
        }
    }

    func get(_ url: URL) async throws -> Int {
        let response = try await client.execute(HTTPClientRequest(url: url.absoluteString), deadline: .now() + .hours(24))
        guard response.status == .ok else { throw ScaleClientError("status \(response.status.code)") }
        return try await response.body.collect(upTo: 1 << 20).readableBytes
    }
}
