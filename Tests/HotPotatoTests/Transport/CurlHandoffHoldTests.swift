import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// How the libcurl engine's hand-off honours a handler's hold (``DeliveryHold``): over HTTP/1.1
/// it stops delivering until the release (and the transfer pauses once enough piles up); over
/// HTTP/2 it keeps delivering, and the handler sets the body aside itself — a paused HTTP/2
/// stream can stall every stream of its connection in libcurl, and a hold lasts as long as its
/// consumer likes.
@Suite struct CurlHandoffHoldTests {
    /// Records the body chunks delivered to it.
    private final class RecordingSink: TransferSink, @unchecked Sendable {
        let delivered = Locked<[Data]>([])
        func receive(head: ResponseHead) -> Bool { true }
        func receive(_ chunk: Data) -> Bool {
            delivered.withLock { $0.append(chunk) }
            return true
        }
        func receive(borrowing bytes: UnsafeRawBufferPointer) -> Bool { receive(Data(bytes)) }
        func end() {}
        func fail(_ error: HotPotatoError) {}
        func bodyEndedEarly(_ cause: HotPotatoError, onlyIfShort: Bool) {}
        func cancel() {}
        var isFinished: Bool { false }
        func deliverOnCaller(_ work: any DeliveryJob) -> Bool { false }
        var receiveRateGroup: ReceiveRateGroup? { nil }
        var chunks: Int { delivered.withLock { $0.count } }
    }

    /// Waits up to `seconds` for `condition`; whether it held.
    private func eventually(within seconds: Double, _ condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if condition() { return true }
            usleep(2_000)
        }
        return condition()
    }

    /// A hand-off whose response head came over `version` and whose handler then asked to hold.
    private func heldHandoff(over version: HTTPVersion) -> (RecordingSink, CurlHandoff) {
        let sink = RecordingSink()
        let handoff = CurlHandoff(sink: sink)
        handoff.responseArrived(over: version)
        handoff.push(.head(ResponseHead(status: 200, httpVersion: version)))
        handoff.hold()
        return (sink, handoff)
    }

    private func offer(_ text: String, to handoff: CurlHandoff) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { handoff.offer($0) }
    }

    @Test func overHTTP1AHoldStopsDeliveriesUntilItsRelease() {
        let (sink, handoff) = heldHandoff(over: .http1_1)
        offer("data: held\n\n", to: handoff)
        // Nothing may arrive while held: a quarter of a second finds nothing.
        #expect(!eventually(within: 0.25) { sink.chunks > 0 }, "a chunk was delivered through a hold")
        handoff.release()
        #expect(eventually(within: 10) { sink.chunks == 1 }, "the release delivered nothing")
        #expect(sink.delivered.withLock { $0.first } == Data("data: held\n\n".utf8))
    }

    @Test func overHTTP2AHoldLetsDeliveriesGoOn() {
        let (sink, handoff) = heldHandoff(over: .http2)
        offer("data: one\n\n", to: handoff)
        offer("data: two\n\n", to: handoff)
        #expect(eventually(within: 10) { sink.chunks >= 1 && sink.delivered.withLock { $0.reduce(0) { $0 + $1.count } } == 22 },
                "an HTTP/2 stream's hold stopped its deliveries")
        #expect(sink.delivered.withLock { Data($0.joined()) } == Data("data: one\n\ndata: two\n\n".utf8))
    }
}
