import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// No URL's credentials in what HotPotato prints or stores: errors, their descriptions, curl
/// command lines, log lines.
@Suite struct RedactionTests {
    @Test(arguments: [
        ("https://bob:secret@example.com/x?y#z", "https://<redacted>@example.com/x?y#z"),
        ("https://bob@example.com/", "https://<redacted>@example.com/"),
        ("http://alice:P@ssw0rd!@127.0.0.1:3128", "http://<redacted>@127.0.0.1:3128"),
        ("alice:P@ssw0rd!@127.0.0.1:3128", "<redacted>@127.0.0.1:3128"),
        ("al ice:it's a p@ss@proxy:1", "<redacted>@proxy:1"),
        ("https://example.com/a@b", "https://example.com/a@b"),
        ("https://example.com/", "https://example.com/"),
    ])
    func aURLLosesItsUserInformation(url: String, redacted: String) {
        #expect(Redaction.redactingCredentials(inURL: url) == redacted)
    }

    @Test func everyURLInATextLosesItsUserInformation() {
        let text = "Unsupported proxy syntax in 'http://alice:P@ssw0rd!@127.0.0.1:3128' for https://u:p@h/p and ftp://x@y"
        #expect(Redaction.redactingCredentials(in: text)
            == "Unsupported proxy syntax in 'http://<redacted>@127.0.0.1:3128' for https://<redacted>@h/p and ftp://<redacted>@y")
        #expect(Redaction.redactingCredentials(in: "mail bob@example.com at https://example.com/") == "mail bob@example.com at https://example.com/")
        #expect(Redaction.redacting(["alice:pw@proxy:3128"], in: "bad 'alice:pw@proxy:3128'") == "bad '<redacted>@proxy:3128'")
    }

    @Test func anErrorsReasonAndDescriptionNeverShowAURLsPassword() {
        var error = HotPotatoError(.invalidRequest, reason: "\"ftp://bob:secret@example.com/\" is not an http URL")
        #expect(!error.reason.contains("secret"))
        #expect(!error.description.contains("secret"))
        error.reason = "then https://bob:secret@example.com/"
        #expect(error.reason == "then https://<redacted>@example.com/")
        let underlying = URLError(.cannotConnectToHost, userInfo: [
            "NSErrorFailingURLStringKey": "http://bob:secret@127.0.0.1:1/x",
            NSURLErrorFailingURLErrorKey: URL(string: "http://bob:secret@127.0.0.1:1/x")!,
        ])
        let mapped = URLErrorMapping.map(underlying)
        #expect(!mapped.description.contains("secret"), "\(mapped.description)")
        #expect(!String(describing: mapped.underlying!).contains("secret"))
        #expect(!CurlError(code: 5, message: "Unsupported proxy syntax in 'http://a:secret@p:1'").description.contains("secret"))
    }

    @Test func aCurlCommandLineRedactsTheURLsCredentialsUnlessAsked() {
        let request = Session().get("https://bob:s3cret@example.com/x")
        #expect(request.cURLDescription().hasSuffix(" 'https://<redacted>@example.com/x'"), "\(request.cURLDescription())")
        #expect(!request.cURLDescription().contains("s3cret"))
        #expect(request.cURLDescription(revealingSecrets: true).hasSuffix(" https://bob:s3cret@example.com/x"))
    }

    /// A call that fails, on each engine, with a password in the URL: the error says where, not
    /// with what.
    @Test(arguments: allEngines) func aFailedCallsErrorHidesTheURLsPassword(engine: Session.Engine) async throws {
        let refusing = try LoopbackSocket.refusing()
        defer { refusing.close() }
        let error = await expectFailure {
            try await testSession(engine: engine).get("http://bob:s3cret@127.0.0.1:\(refusing.port)/x").asData().response()
        }
        #expect(error?.code == .connectionRefused)
        #expect(error.map { !$0.description.contains("s3cret") && !$0.reason.contains("s3cret") } == true, "\(String(describing: error))")
        let invalid = await expectFailure {
            try await testSession(engine: engine).get("ftp://bob:s3cret@127.0.0.1:\(refusing.port)/x").asData().response()
        }
        #expect(invalid?.code == .invalidRequest)
        #expect(invalid.map { !$0.description.contains("s3cret") } == true, "\(String(describing: invalid))")
    }
}
