import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// The one-shot body: pulled only as fast as it is read, claimed once, never rewound once read.
@Suite struct OneShotBodyTests {
    /// Reads `reader` to its end on a thread of its own, as an engine's worker does.
    static func readAll(_ reader: any BodyReader, bufferSize: Int = 7) async throws -> Data {
        try await offThePool {
            let reading = BlockingBodyRead(reader)
            var data = Data()
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 1)
            defer { buffer.deallocate() }
            let deadline = Date().addingTimeInterval(30)
            while true {
                switch reading.read(into: buffer, shouldStop: { Date() > deadline }) {
                case .bytes(let count)?: data.append(contentsOf: buffer[..<count])
                case .end?: return data
                case .failure(let error)?: throw error
                case .wouldBlock?, nil: throw HotPotatoError(.timedOut, reason: "gave up")
                }
            }
        }
    }

    @Test func anAsyncSequenceIsReadInOrder() async throws {
        let chunks = AsyncStream<Data> { continuation in
            for index in 0..<100 { continuation.yield(Data("\(index),".utf8)) }
            continuation.yield(Data())
            continuation.finish()
        }
        let body = OneShotBody.streaming(chunks, length: nil)
        let data = try await Self.readAll(body)
        #expect(String(decoding: data, as: UTF8.self) == (0..<100).map { "\($0)," }.joined())
    }
}
