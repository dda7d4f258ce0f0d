import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// README's "A first example", run against the test nginx with the document it shows: it prints
/// what the README says it prints.
@Suite(.needsNginx) struct ReadmeFirstExampleTests {
    private struct Potato: Decodable, Sendable { let name: String; let kg: Double }

    @Test(arguments: allEngines) func printsWhatTheReadmeShows(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        // Atomically: the other engine's case writes the same file while nginx may be serving it
        // (written in place, a reader could find it truncated and empty).
        try Data(#"{"items":[{"name":"spud","kg":2.5},{"name":"russet","kg":1}]}"#.utf8)
            .write(to: nginx.root.appendingPathComponent("potatoes.json"), options: .atomic)
        var printed: [String] = []

        // The example, its URLs those of the test server and `print` collected.
        let session = Session(engine: engine)
        let potatoes = try await session.get(nginx.url("potatoes.json")).as([Potato].self, atKeyPath: "items").content
        printed.append("\(potatoes.map(\.name))")
        do {
            _ = try await session.get(nginx.url("carrots.json")).asJSON().content
        } catch {
            printed.append("\(error.code) \(error.status ?? 0) \(error.serverMessage ?? "")")
        }

        #expect(printed == [#"["spud", "russet"]"#, "unacceptableStatus 404 404 Not Found"])
    }
}
