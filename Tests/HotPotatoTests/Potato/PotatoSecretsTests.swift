import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// potato never prints a URL's password or a proxy's, without `-v` or with it.
@Suite struct PotatoSecretsTests {
    private func potato(_ arguments: [String], environment: [String: String] = [:]) async throws -> PotatoProcess.Outcome {
        var variables: [String: String] = [:]
        for name in ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"] {
            variables[name] = ""
        }
        let merged = variables.merging(environment) { _, new in new }
        return try await offThePool { try PotatoProcess(arguments, environment: merged).wait() }
    }

    @Test(arguments: PotatoProxyTests.engines) func aRejectedURLsPasswordIsNotEchoed(engine: String) async throws {
        let outcome = try await potato(["get", "ftp://bob:s3cret@127.0.0.1:9/x", "--engine", engine])
        #expect(outcome.status == 3)
        #expect(!outcome.error.contains("s3cret"), "\(outcome.error)")
        #expect(outcome.error.contains("<redacted>@127.0.0.1:9"))
    }

    @Test(arguments: PotatoProxyTests.engines) func aURLsPasswordIsNotPrintedWithVerbose(engine: String) async throws {
        let refusing = try LoopbackSocket.refusing()
        defer { refusing.close() }
        let outcome = try await potato(["get", "http://bob:s3cret@127.0.0.1:\(refusing.port)/x", "-v", "--engine", engine])
        #expect(outcome.status != 0)
        #expect(!outcome.error.contains("s3cret"), "\(outcome.error)")
    }

    /// A proxy URL libcurl cannot parse: FoundationNetworking's libcurl quotes it whole in its
    /// message (the curl engine hands the credentials over apart from it).
    @Test(arguments: PotatoProxyTests.engines) func anUnusableProxysPasswordIsNotPrinted(engine: String) async throws {
        for proxy in ["http://alice:P@ssw0rd!@127.0.0.1:9", "alice:P@ssw0rd!@127.0.0.1:9", "http://al ice:P@ss w0rd!@127.0.0.1:9"] {
            let outcome = try await potato(["get", "http://127.0.0.1:9/x", "--engine", engine], environment: ["http_proxy": proxy])
            #expect(outcome.status != 0)
            #expect(!outcome.error.contains("P@ss"), "\(proxy): \(outcome.error)")
        }
    }
}
