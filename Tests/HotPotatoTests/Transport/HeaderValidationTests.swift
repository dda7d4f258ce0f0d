import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// A header field that cannot be sent as it is — a name that is not an RFC 9110 token, a value
/// with a line break or another control character — fails the call with `.invalidRequest`
/// before any connection (Foundation would drop such a field without a word, and the request go
/// without it), on both engines; potato refuses it as a usage error (exit 2).
@Suite struct HeaderValidationTests {
    static let invalid: [(name: String, value: String)] = [
        ("X-Test", "a\r\nX-Evil: 1"), ("X-Test", "a\nb"), ("X-Test", "a\rb"), ("X-Test", "a\u{0}b"), ("X-Test", "a\u{7F}"),
        ("X(y)", "1"), ("Xé", "1"), ("", "1"), ("Bad Name", "1"), ("X:Y", "1"),
    ]

    @Test(arguments: allEngines) func aFieldThatCannotBeSentFailsBeforeConnecting(engine: Session.Engine) async throws {
        // Nothing listens there: a request that went out would fail with .connectionRefused.
        let url = URL(string: "http://127.0.0.1:\(try freeLoopbackPort())/")!
        for field in Self.invalid {
            let error = await expectFailure {
                try await testSession(engine: engine).get(url).header(field.name, field.value).asData().content
            }
            #expect(error?.code == .invalidRequest, "\(field.name.debugDescription): \(field.value.debugDescription)")
        }
        let session = testSession(engine: engine) { $0.headers = ["X-Default": "a\r\nb"] }
        let error = await expectFailure { try await session.get(url).asData().content }
        #expect(error?.code == .invalidRequest)
    }

    @Test(.needsHTTPBin, arguments: allEngines) func aTabInAValueIsSent(engine: Session.Engine) async throws {
        let bin = try await TestServers.httpbin()
        let headers = try await testSession(engine: engine).get(bin.url("/headers")).header("X-Tab", "a\tb")
            .as([String: String].self, atKeyPath: "headers").content
        #expect(headers["X-Tab"] == "a\tb")
    }

    @Test(arguments: [["-H", "X-Test: a\r\nX-Evil: 1"], ["-H", "X-Test: a\nb"], ["-H", "X(y): 1"], ["-H", "Xé: 1"],
                      ["-b", "k=v\nX: y"], ["--proxy-header", "X-Test: a\rb"]])
    func potatoRefusesSuchAField(arguments: [String]) async throws {
        let outcome = try await PotatoProcess.run(["get", "http://127.0.0.1:1/"] + arguments)
        #expect(outcome.status == 2, "\(arguments): \(outcome.error)")
        #expect(outcome.error.contains("potato: "))
    }
}
