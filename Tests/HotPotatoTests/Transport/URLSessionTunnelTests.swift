import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import HotPotato

#if canImport(FoundationNetworking)
/// FoundationNetworking reports a proxy's answer to a `CONNECT` as a response before the real
/// one: a URLSession transfer of a tunnelled request (an `https` URL with a proxy in the
/// environment, here a made-up one) never hands it to the sink. Driven by hand with made-up
/// responses: a real tunnel to an origin the system trusts is not available offline (the TLS
/// failure through a real tunnel is tested in PotatoProxyTests).
@Suite struct URLSessionTunnelTests {
    /// What a transfer handed over.
    final class RecordingSink: TransferSink, @unchecked Sendable {
        var heads: [ResponseHead] = []
        var body = Data()
        var ended = false
        var failure: HotPotatoError?

        func receive(head: ResponseHead) -> Bool { heads.append(head); return true }
        func receive(_ chunk: Data) -> Bool { body.append(chunk); return true }
        func receive(borrowing bytes: UnsafeRawBufferPointer) -> Bool { body.append(contentsOf: bytes); return true }
        func end() { ended = true }
        func fail(_ error: HotPotatoError) { failure = error }
        func bodyEndedEarly(_ cause: HotPotatoError, onlyIfShort: Bool) { failure = cause }
        func cancel() {}
        var isFinished: Bool { ended || failure != nil }
    }

    private let origin = URL(string: "https://origin.example/data")!

    private func transfer(_ sink: RecordingSink, proxyVariables: [String: String]) -> URLSessionTransfer {
        URLSessionTransfer(
            request: URLRequest(url: origin), body: nil, sink: sink, redirectPolicy: RedirectPolicy(.follow()),
            proxyRule: URLSessionProxyRule(configured: .environment(proxyVariables), environment: { proxyVariables }),
            canceller: URLSessionTaskCanceller(), highWaterMark: 1 << 20, backlog: { 0 }, nextTask: { _, _, _, _ in nil },
            release: { _ in })
    }

    private func response(_ status: Int, _ headers: [String: String] = [:]) -> HTTPURLResponse {
        HTTPURLResponse(url: origin, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
    }

    private let proxied = ["https_proxy": "http://proxy.example:3128"]

    @Test func theCONNECTAnswerIsNotTheResponse() {
        let sink = RecordingSink()
        let transfer = transfer(sink, proxyVariables: proxied)
        transfer.didReceive(response(200))
        #expect(sink.heads.isEmpty, "held back")
        transfer.didReceive(response(200, ["Content-Type": "application/json", "Content-Length": "2"]))
        transfer.didReceive(Data("{}".utf8))
        transfer.didComplete(nil)
        #expect(sink.heads.map(\.status) == [200])
        #expect(sink.heads.first?.headers["Content-Type"] == "application/json", "the real response's head")
        #expect(sink.body == Data("{}".utf8))
        #expect(sink.ended)
    }

    @Test func aRealResponseThatIsNot2xxIsHandedOverAtOnce() {
        let sink = RecordingSink()
        let transfer = transfer(sink, proxyVariables: proxied)
        transfer.didReceive(response(200))
        transfer.didReceive(response(404, ["Content-Length": "0"]))
        #expect(sink.heads.map(\.status) == [404])
        transfer.didComplete(nil)
        #expect(sink.heads.map(\.status) == [404])
    }

    @Test func aReusedTunnelsOnlyResponseIsHandedOverWithItsBodyOrAtTheEnd() {
        let sink = RecordingSink()
        let transfer = transfer(sink, proxyVariables: proxied)
        transfer.didReceive(response(200, ["Content-Length": "3"]))
        transfer.didReceive(Data("abc".utf8))
        #expect(sink.heads.map(\.status) == [200])
        transfer.didComplete(nil)
        #expect(sink.body == Data("abc".utf8))

        let empty = RecordingSink()
        let other = self.transfer(empty, proxyVariables: proxied)
        other.didReceive(response(204))
        other.didComplete(nil)
        #expect(empty.heads.map(\.status) == [204])
        #expect(empty.ended)
    }

    @Test func aFailureThroughTheTunnelHasNoHead() {
        let sink = RecordingSink()
        let transfer = transfer(sink, proxyVariables: proxied)
        transfer.didReceive(response(200))
        transfer.didComplete(URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: "SSL certificate problem: unable to get local issuer certificate"]))
        #expect(sink.heads.isEmpty)
        #expect(sink.failure?.code == .tlsFailure, "\(sink.failure.map { "\($0)" } ?? "no failure")")
    }

    /// `.environment()` exempts a `host:port` entry, or a `*` among others; libcurl 7.88 does
    /// neither, so its request would go through the proxy: refused.
    @Test(arguments: ["origin.example:443", "other.example,*"])
    func entriesLibcurlDoesNotUnderstandAreNotTakenForAnExemption(noProxy: String) {
        let variables = ["https_proxy": "http://proxy.example:3128", "no_proxy": noProxy]
        let rule = URLSessionProxyRule(configured: .environment(variables), environment: { variables })
        #expect(throws: HotPotatoError.self) { try rule.check(origin) }
        let whole = ["https_proxy": "http://proxy.example:3128", "no_proxy": "*"]
        #expect(throws: Never.self) { try URLSessionProxyRule(configured: .environment(whole), environment: { whole }).check(origin) }
    }

    @Test func withoutATunnelTheResponseIsHandedOverAtOnce() {
        for variables in [[:], ["https_proxy": "http://proxy.example:3128", "no_proxy": "origin.example"], ["http_proxy": "http://p:1"]] {
            let sink = RecordingSink()
            transfer(sink, proxyVariables: variables).didReceive(response(200))
            #expect(sink.heads.map(\.status) == [200], "\(variables)")
        }
    }
}
#endif
