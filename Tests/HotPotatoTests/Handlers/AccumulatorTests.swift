import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

@Suite struct AccumulatorTests {
    @Test(arguments: Chunking.allCases)
    func collectsTheBodyInOrder(chunking: Chunking) throws {
        let body = patternedData(count: 100_003)
        let data = try drive(Accumulator(), head: head(200, contentLength: body.count), body: body, chunking: chunking)
        #expect(data == body)
    }

    @Test(arguments: Chunking.allCases)
    func bodyWithoutContentLength(chunking: Chunking) throws {
        let body = patternedData(count: 33_333)
        #expect(try drive(Accumulator(), head: head(200), body: body, chunking: chunking) == body)
    }

    @Test func declaredLengthOverTheLimitIsRefusedAtTheHead() throws {
        let handler = Accumulator(maximumBodySize: 1_000)
        let driver = ResponseDriver(handler: handler)
        #expect(!driver.receive(head: head(200, contentLength: 1_001)), "refused before any byte is read")
        let error = try #require(driver.result?.failure)
        #expect(error.code == .bodyTooLarge)
        #expect(error.limit == 1_000)
        #expect(error.byteCount == 1_001)
        #expect(error.head?.status == 200)
    }

    @Test(arguments: Chunking.allCases)
    func bodyGrowingPastTheLimitStops(chunking: Chunking) throws {
        let handler = Accumulator(maximumBodySize: 1_000)
        let error = try #require(expectFailure {
            try drive(handler, head: head(200), body: patternedData(count: 20_000), chunking: chunking)
        })
        #expect(error.code == .bodyTooLarge)
        #expect(error.limit == 1_000)
        #expect(error.byteCount! > 1_000)
        #expect(handler.body.isEmpty, "the bytes are released")
    }

    @Test func bodyExactlyAtTheLimitIsAccepted() throws {
        let body = patternedData(count: 1_000)
        #expect(try drive(Accumulator(maximumBodySize: 1_000), head: head(200, contentLength: 1_000), body: body, chunking: .odd) == body)
    }

    /// A raised limit does not let a server's declared length decide how much memory is taken
    /// up front: a `Content-Length` of 1 TiB or `Int64.max` (which no allocation can satisfy)
    /// is accepted under a limit of `.max` and the body that actually comes is collected.
    @Test(arguments: [Int64(1) << 40, .max])
    func aHugeDeclaredLengthUnderARaisedLimitReservesABoundedAmount(declared: Int64) throws {
        let handler = Accumulator(maximumBodySize: .max)
        let response = ResponseHead(status: 200, headers: ["Content-Length": String(declared)])
        try handler.prepare(for: response)
        let body = patternedData(count: 300_001)
        for chunk in stride(from: 0, to: body.count, by: 16_384).map({ body[$0..<min($0 + 16_384, body.count)] }) {
            try handler.receive(Data(chunk))
        }
        #expect(handler.body == body)
        #expect(Accumulator<Data>.maximumReservation == 64 * 1024 * 1024)
    }

    @Test func defaultLimitIs64MiB() {
        #expect(Accumulator().maximumBodySize == 64 * 1024 * 1024)
    }

    @Test(arguments: [head(204), head(205), head(200, method: "HEAD"), head(200, contentLength: 0)])
    func emptyResponsesGiveEmptyData(response: ResponseHead) throws {
        #expect(try drive(Accumulator(), head: response, body: Data()).isEmpty)
    }

    @Test func rejectedStatusNeverAccumulates() throws {
        let handler = Accumulator()
        let error = expectFailure { try drive(handler, head: head(502), body: Data("bad gateway".utf8)) }
        #expect(error?.code == .unacceptableStatus)
        #expect(error?.errorBody?.text == "bad gateway")
        #expect(handler.body.isEmpty)
    }

    @Test func truncatedBodyFails() throws {
        let error = expectFailure { try drive(Accumulator(), head: head(200, contentLength: 100), body: patternedData(count: 99)) }
        #expect(error?.code == .truncatedBody)
    }
}
