import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// The one-shot body: pulled only as fast as it is read, claimed once, never rewound once read.
@Suite struct OneShotBodyTests {
    /// A call, as far as claiming a body goes.
    final class Call {}

    /// The reader of an attempt of a call of its own.
    static func reader(_ body: OneShotBody) throws -> OneShotReader {
        try body.claim(by: Call())
    }

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
        let data = try await Self.readAll(try Self.reader(body))
        #expect(String(decoding: data, as: UTF8.self) == (0..<100).map { "\($0)," }.joined())
    }
}

extension OneShotBodyTests {
    @Test func aBodyIsClaimedByOneRunAtATimeAndNeverOnceRead() async throws {
        let body = OneShotBody.streaming(AsyncStream<Data> { $0.yield(Data("x".utf8)); $0.finish() }, length: nil)
        let (call, other) = (Call(), Call())
        var first: OneShotReader? = try body.claim(by: call)
        #expect(throws: HotPotatoError.self) { _ = try body.claim(by: other) }
        // Another attempt of the same call (a retry) may claim it while the first has not let go.
        let retry = try body.claim(by: call)
        first = nil
        #expect(first == nil)
        #expect(retry.rewind(), "nothing was read: rewinding changes nothing")
        #expect(!body.wasConsumed)
        _ = try await Self.readAll(retry)
        #expect(body.wasConsumed)
        #expect(!retry.rewind())
        do {
            _ = try body.claim(by: call)
            Issue.record("a body read once was claimed again")
        } catch {
            #expect(error.code == .bodyNotReplayable)
        }
    }

    @Test func anInputStreamIsReadInOrder() async throws {
        let content = patternedData(count: 200_000)
        let body = OneShotBody.reading(InputStream(data: content), length: Int64(content.count))
        let data = try await Self.readAll(try Self.reader(body), bufferSize: 4096)
        #expect(sameBytes(data, content))
    }

    @Test func closingStopsTheProducer() async throws {
        let (entered, cancelled) = (Locked(false), Locked(false))
        let chunks = AsyncStream<Data> {
            entered.withLock { $0 = true }
            // The element never comes: only a cancelled task ends the wait.
            await withTaskCancellationHandler {
                while !Task.isCancelled { try? await Task.sleep(nanoseconds: 10_000_000) }
            } onCancel: {
                cancelled.withLock { $0 = true }
            }
            return nil
        }
        let body = try Self.reader(OneShotBody.streaming(chunks, length: nil))
        var buffer = [UInt8](repeating: 0, count: 16)
        let result = buffer.withUnsafeMutableBytes { body.read(into: $0, wake: {}) }
        guard case .wouldBlock = result else { Issue.record("read \(result)"); return }
        let deadline = Date().addingTimeInterval(10)
        while !entered.withLock({ $0 }) && Date() < deadline { try await Task.sleep(nanoseconds: 5_000_000) }
        body.close()
        while !cancelled.withLock({ $0 }) && Date() < deadline { try await Task.sleep(nanoseconds: 5_000_000) }
        #expect(cancelled.withLock { $0 }, "closing the body cancels the task iterating the sequence")
        guard case .failure = buffer.withUnsafeMutableBytes({ body.read(into: $0, wake: {}) }) else {
            Issue.record("a closed body was read")
            return
        }
    }
}

extension OneShotBodyTests {
    /// However slowly the engine reads, the producer is at most one element ahead: the one being
    /// sent and the next.
    @Test func theProducerStaysAtMostOneElementAhead() async throws {
        let pulled = Locked(0)
        let chunks = AsyncStream<Data> {
            let count = pulled.withLock { count in
                count += 1
                return count
            }
            return count <= 50 ? Data(repeating: UInt8(count), count: 10) : nil
        }
        let body = try Self.reader(OneShotBody.streaming(chunks, length: nil))
        let maximumLead = try await offThePool { () -> Int in
            let reading = BlockingBodyRead(body)
            var buffer = [UInt8](repeating: 0, count: 10)
            var read = 0
            var lead = 0
            while case .bytes = buffer.withUnsafeMutableBytes({ reading.read(into: $0, shouldStop: { false }) }) {
                read += 1
                usleep(2_000)  // a slow engine: the producer has every chance to run ahead
                lead = max(lead, pulled.withLock { $0 } - read)
            }
            return lead
        }
        #expect(maximumLead <= 1, "the producer ran \(maximumLead) elements ahead")
    }
}
