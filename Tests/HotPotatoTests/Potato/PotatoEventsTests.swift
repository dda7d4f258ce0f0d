import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// `potato get --events`: one JSON line an event, resumed with `--retry`, the server's message
/// on a rejection, and nothing a server sends can steer the terminal.
@Suite struct PotatoEventsTests {
    /// The lines of standard output, each parsed as JSON.
    static func lines(_ outcome: PotatoProcess.Outcome) throws -> [JSON] {
        try outcome.text.split(separator: "\n").map { try JSON(parsing: Data($0.utf8)) }
    }

    @Test(arguments: allEngineNames)
    func eachEventIsOneLineOfJSON(engine: String) async throws {
        let server = try await TestServers.fault()
        let outcome = try await PotatoProcess.run(["get", "--events", server.url("/events?count=3&chunk=9").absoluteString, "--engine", engine])
        #expect(outcome.status == 0, "\(outcome.error)")
        let lines = try Self.lines(outcome)
        #expect(lines.count == 3)
        for (offset, line) in lines.enumerated() {
            #expect(line["type"]?.stringValue == "tick")
            #expect(line["id"]?.stringValue == String(offset + 1))
            // The data is JSON: written as JSON, not as a string.
            #expect(line["data.index"]?.intValue == offset + 1)
            #expect(line["data.name"]?.stringValue == "event \(offset + 1)")
        }
    }

    @Test(arguments: allEngineNames)
    func retryResumesADroppedStreamWhereItLeftOff(engine: String) async throws {
        let server = try await TestServers.fault()
        let url = server.url("/events?count=7&perConnection=2").absoluteString
        let outcome = try await PotatoProcess.run(["get", "--events", url, "--retry", "3", "--retry-delay", "0", "--engine", engine])
        #expect(outcome.status == 0, "\(outcome.error)")
        #expect(try Self.lines(outcome).map { $0["id"]?.stringValue } == (1...7).map(String.init))
        let once = try await PotatoProcess.run(["get", "--events", url, "--engine", engine])
        #expect(try Self.lines(once).count == 2)
        #expect(once.status != 0, "a dropped stream without --retry is a failure")
    }

    @Test func aRejectionPrintsTheServersMessage() async throws {
        let server = try await TestServers.fault()
        let outcome = try await PotatoProcess.run(["get", "--events", server.url("/events?status=401").absoluteString])
        #expect(outcome.status == 9)
        #expect(outcome.output.isEmpty)
        #expect(outcome.error.contains("the server says: token expired"), "\(outcome.error)")
    }

    @Test func serverTextCannotSteerTheTerminal() async throws {
        let server = try await TestServers.fault()
        let outcome = try await PotatoProcess.run(["get", "--events", server.url("/events?count=1&hostile=1").absoluteString])
        #expect(outcome.status == 0, "\(outcome.error)")
        #expect(!outcome.text.unicodeScalars.contains { [0x1B, 0x9B, 0x202E].contains($0.value) })
        let lines = try Self.lines(outcome)
        // Still valid JSON, the text intact once parsed.
        #expect(lines.first?["data"]?.stringValue == "red \u{1B}[31m, \u{9B}2J and \u{202E}reversed")
        #expect(lines.count == 2)
    }

    @Test func eventsIsOneOutputMode() async throws {
        let outcome = try await PotatoProcess.run(["get", "--events", "--json", "http://127.0.0.1:9/"])
        #expect(outcome.status == 2)
        #expect(outcome.error.contains("choose one of -o, --json, --string and --events"))
    }
}
