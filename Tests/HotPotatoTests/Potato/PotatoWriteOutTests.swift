import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// `potato get -w FORMAT`: curl's `--write-out` variables, after the body or the failure.
@Suite(.needsNginx, .enabled(if: Session.Engine.curl.isAvailable))
struct PotatoWriteOutTests {
    @Test func aDownloadsVariablesAreWrittenAsCurlWritesThem() async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let url = nginx.url("medium.bin").absoluteString
        let outcome = try await PotatoProcess.run([
            "get", url, "-o", scratch.file("medium.bin").path, "-q",
            "-w", "%{http_code} %{http_version} %{num_connects} %{size_download} %{remote_ip}:%{remote_port} %{url_effective}\\t"
                + "%{time_namelookup} %{time_connect} %{time_appconnect} %{time_starttransfer} %{time_total} %{speed_download} 100%%\\n",
        ])
        #expect(outcome.status == 0, "\(outcome.error)")
        let fields = outcome.text.split(separator: "\t")
        #expect(fields.count == 2 && outcome.text.hasSuffix(" 100%\n"), "\(outcome.text)")
        #expect(fields.first == "200 1.1 1 \(NginxServer.mediumFileSize) 127.0.0.1:\(nginx.port) \(url)", "\(outcome.text)")
        let numbers = (fields.last ?? "").split(separator: " ").dropLast().compactMap { Double($0) }
        #expect(numbers.count == 6, "\(outcome.text)")
        if numbers.count == 6 {
            #expect(numbers[2] == 0, "no TLS: time_appconnect is 0")
            let times = [numbers[0], numbers[1], numbers[3], numbers[4]]
            #expect(times == times.sorted() && numbers[4] > 0, "\(outcome.text)")
            #expect(numbers[5] > 0)
        }
    }

    @Test(.enabled(if: TestCertificates.isAvailable))
    func anHTTPSRequestHasItsHandshakeTimeAndAFailureItsStatus() async throws {
        let tls = try await TestServers.nginxTLS()
        let ok = try await PotatoProcess.run([
            "get", "https://127.0.0.1:\(tls.http1Port)/small.json", "--cacert", tls.certificateAuthority.path, "--string",
            "-w", "%{http_code} %{time_connect} %{time_appconnect} %{tls_version} %{tls_cipher}\\n", "-v",
        ])
        #expect(ok.status == 0, "\(ok.error)")
        let last = ok.text.split(separator: "\n").last.map(String.init) ?? ""
        let parts = last.split(separator: " ")
        #expect(parts.first == "200", "\(ok.text)")
        if parts.count == 5, let connect = Double(parts[1]), let handshake = Double(parts[2]) {
            #expect(handshake > connect, "\(last)")
            // The TLS facts (this machine's libcurl uses OpenSSL), in -w and in -v's last line.
            #expect(parts[3].hasPrefix("TLSv1.") && !parts[4].isEmpty, "\(last)")
            #expect(ok.error.contains("(new), \(parts[3]) \(parts[4])"), "\(ok.error)")
        } else {
            Issue.record("unexpected -w output: \(ok.text)")
        }
        let missing = try await PotatoProcess.run([
            "get", "https://127.0.0.1:\(tls.http1Port)/missing", "--cacert", tls.certificateAuthority.path, "-w", "%{http_code}",
        ])
        #expect(missing.status == 9)
        #expect(missing.text == "404", "\(missing.text)")
    }

    /// After a rejected status, as curl: the connection and the timings of the request that
    /// got it (they read 0 and empty before).
    @Test func aRejectedResponseHasItsTimingsToo() async throws {
        let nginx = try await TestServers.nginx()
        let outcome = try await PotatoProcess.run([
            "get", nginx.url("missing.bin").absoluteString, "-q",
            "-w", "%{http_code} %{num_connects} %{remote_ip} %{size_download} %{time_total}\\n[%{tls_version}%{tls_cipher}]",
        ])
        #expect(outcome.status == 9, "\(outcome.error)")
        #expect(outcome.text.hasSuffix("\n[]"), "plain http has no TLS facts: \(outcome.text)")
        let fields = outcome.text.split(separator: "\n").dropLast().last?.split(separator: " ") ?? []
        #expect(fields.count == 5 && fields[0] == "404" && fields[1] == "1" && fields[2] == "127.0.0.1", "\(outcome.text)")
        #expect(fields.count == 5 && (Int(fields[3]) ?? 0) > 0 && (Double(fields[4]) ?? 0) > 0, "\(outcome.text)")
    }

    @Test func anUnknownVariableIsAUsageError() async throws {
        let outcome = try await PotatoProcess.run(["get", "http://127.0.0.1:9/", "-w", "%{time_redirect}"])
        #expect(outcome.status == 2)
        #expect(outcome.error.contains("%{time_redirect}") && outcome.error.contains("%{time_total}"), "\(outcome.error)")
    }
}
