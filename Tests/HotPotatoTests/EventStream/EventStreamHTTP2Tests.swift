import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// An event stream over HTTP/2 on the curl engine, against nginx over TLS: its consumer holding
/// the stream back must not hold back the other streams of the multiplexed connection.
@Suite(.needsNginx, .needsCurlHTTP2) struct EventStreamHTTP2Tests {
    @Test func aConsumerThatWaitsHoldsBackOnlyItsOwnStream() async throws {
        let tls = try await TestServers.nginxTLS()
        let session = testSession(engine: .curl) { $0.certificateAuthorities = tls.certificateAuthority }
        let base = "https://127.0.0.1:\(tls.port)"
        var iterator = session.get(URL(string: base + "/events.sse")!).streamEvents(bufferSize: 2).makeAsyncIterator()
        #expect(try await iterator.next()?.id == "1")
        // The stream's delivering thread now waits for this task to take more events, and this
        // task waits for another request on the same session first: were the multiplexed
        // connection held back with the stream, it would never complete (the session's idle
        // timeout would fail it).
        let other: Response<JSON>
        do {
            other = try await session.get(URL(string: base + "/small.json")!).asJSON().response()
        } catch {
            Issue.record("the other request, while the stream was held, failed: \(error)")
            throw error
        }
        #expect(other.httpVersion == .http2)
        #expect(other.content["name"] == "HotPotato")
        var seen = 1
        var outOfOrder = 0
        do {
            while let event = try await iterator.next() {
                seen += 1
                if event.id != String(seen) { outOfOrder += 1 }
            }
        } catch {
            Issue.record("the stream, read again after the other request, failed after \(seen) events: \(error)")
            throw error
        }
        #expect(seen == NginxServer.eventCount)
        #expect(outOfOrder == 0)
    }
}
