import Foundation
import Testing
@testable import HotPotato

@Suite(.needsNginx) struct SmokeTests {
    @Test func getsJSONFromNginx() async throws {
        let nginx = try TestServers.nginx()
        let json = try await Session.shared.get(nginx.url("small.json")).asJSON().content
        #expect(json["name"] == "HotPotato")
    }

    @Test func downloadsTheBigFile() async throws {
        let nginx = try TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let start = Date()
        let response = try await Session.shared.get(nginx.url("big.bin")).downloadToFile(at: scratch.file("big.bin")).response()
        print("downloaded in", Date().timeIntervalSince(start))
        #expect(try filesAreIdentical(response.content, nginx.root.appendingPathComponent("big.bin")))
    }
}
