import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

@Suite struct ResponseDriverTests {
    @Test func successfulCallOrder() throws {
        let handler = RecordingHandler()
        let driver = ResponseDriver(handler: handler)
        #expect(driver.receive(head: head(200, contentLength: 5)))
        #expect(driver.receive(Data("ab".utf8)))
        #expect(driver.receive(Data()))
        #expect(driver.receive(Data("cde".utf8)))
        let content = try driver.finish().get()
        #expect(content == Data("abcde".utf8))
        #expect(handler.steps == [.prepare(200), .receive(2), .receive(3), .finish])
        #expect(driver.bytesReceived == 5)
        // The outcome is settled: later calls change nothing.
        #expect(!driver.receive(Data("x".utf8)))
        #expect(driver.finish().isSuccess)
        #expect(handler.steps.count == 4)
    }

    @Test func rejectionKeepsTheErrorBodyAndStopsAtTheLimit() throws {
        let handler = Accumulator()
        let driver = ResponseDriver(handler: handler, errorBodyLimit: 10)
        #expect(driver.receive(head: head(404, contentType: "application/json")))
        #expect(driver.receive(Data("{\"error\":".utf8)))
        #expect(!driver.receive(Data("\"nope\"}".utf8)), "the driver stops once more than the limit arrived")
        let error = try #require(driver.result?.failure)
        #expect(error.code == .unacceptableStatus)
        #expect(error.head?.status == 404)
        #expect(error.errorBody?.data == Data("{\"error\":\"".utf8))
        #expect(error.errorBody?.isTruncated == true)
        #expect(handler.body.isEmpty, "a rejected body never reaches the handler")
    }

    @Test func rejectedBodyThatFitsIsWhole() throws {
        let error = try #require(expectFailure {
            try drive(Accumulator(), head: head(500, contentType: "text/plain", contentLength: 12),
                      body: Data("server broke".utf8), chunking: .oneByte)
        })
        #expect(error.code == .unacceptableStatus)
        #expect(error.errorBody?.text == "server broke")
        #expect(error.errorBody?.isTruncated == false)
        #expect(error.serverMessage == "server broke")
    }

    /// A content-coded error body's `Content-Length` counts its coded bytes: the decoded body,
    /// whole, is not truncated for being another length; an uncoded one that is shorter is.
    @Test func aCodedErrorBodyIsNotTruncatedForItsDecodedLength() throws {
        let coded = ResponseHead(status: 404, headers: [
            "Content-Type": "application/json", "Content-Encoding": "gzip", "Content-Length": "39",
        ])
        let driver = ResponseDriver(handler: Accumulator())
        _ = driver.receive(head: coded)
        _ = driver.receive(Data(#"{"error":"gone"}"#.utf8))
        let error = try #require(driver.finish().failure)
        #expect(error.errorBody?.isTruncated == false)

        let short = ResponseDriver(handler: Accumulator())
        _ = short.receive(head: head(404, contentType: "application/json", contentLength: 39))
        _ = short.receive(Data(#"{"error":"gone"}"#.utf8))
        #expect(try #require(short.finish().failure).errorBody?.isTruncated == true)
    }

    @Test func rejectionWithEmptyBodyCompletesAtTheHead() throws {
        let driver = ResponseDriver(handler: Accumulator())
        #expect(!driver.receive(head: head(404, contentLength: 0)))
        let error = try #require(driver.result?.failure)
        #expect(error.code == .unacceptableStatus)
        #expect(error.errorBody?.data.isEmpty == true)
        #expect(error.errorBody?.isTruncated == false)
    }

    @Test func zeroErrorBodyLimitStopsAtTheHead() throws {
        let driver = ResponseDriver(handler: Accumulator(), errorBodyLimit: 0)
        #expect(!driver.receive(head: head(500, contentLength: 10)))
        #expect(driver.result?.failure?.errorBody?.isTruncated == true)
    }

    @Test func transportFailureWhileKeepingTheErrorBodyStillReportsTheRejection() throws {
        let driver = ResponseDriver(handler: Accumulator())
        driver.receive(head: head(503, contentType: "text/plain", contentLength: 100))
        driver.receive(Data("overloa".utf8))
        let error = try #require(driver.fail(URLError(.networkConnectionLost)).failure)
        #expect(error.code == .unacceptableStatus)
        #expect(error.errorBody?.text == "overloa")
        #expect(error.errorBody?.isTruncated == true)
    }

    @Test func shortRejectedBodyIsMarkedTruncated() throws {
        let driver = ResponseDriver(handler: Accumulator())
        driver.receive(head: head(500, contentLength: 100))
        driver.receive(Data("partial".utf8))
        #expect(driver.finish().failure?.errorBody?.isTruncated == true)
    }

    @Test func nonRejectionErrorAtTheHeadFailsAtOnce() throws {
        let handler = RecordingHandler()
        handler.failOnPrepare = RecordingHandler.Boom()
        let driver = ResponseDriver(handler: handler)
        #expect(!driver.receive(head: head(200)))
        let error = try #require(driver.result?.failure)
        #expect(error.code == .handlerFailed)
        #expect(error.underlying is RecordingHandler.Boom)
        #expect(error.errorBody == nil)
        #expect(handler.steps == [.prepare(200), .cleanUp])
    }

    @Test func handlerErrorOnAChunkStopsAndCleansUp() throws {
        let handler = RecordingHandler()
        let driver = ResponseDriver(handler: handler)
        driver.receive(head: head(200))
        driver.receive(Data("12345".utf8))
        handler.failOnReceive = HotPotatoError(.writeFailed, reason: "disk full")
        #expect(!driver.receive(Data("678".utf8)))
        let error = try #require(driver.result?.failure)
        #expect(error.code == .writeFailed)
        #expect(error.byteOffset == 5, "the offset of the chunk that failed")
        #expect(error.head?.status == 200, "the driver attaches the head")
        #expect(handler.steps.last == .cleanUp)
    }

    @Test func truncatedBodyIsAnError() throws {
        let handler = RecordingHandler()
        let error = try #require(expectFailure {
            try drive(handler, head: head(200, contentLength: 10), body: Data("12345".utf8))
        })
        #expect(error.code == .truncatedBody)
        #expect(error.limit == 10)
        #expect(error.byteCount == 5)
        #expect(!handler.steps.contains(.finish), "a truncated body is never converted")
        #expect(handler.steps.last == .cleanUp)
    }

    @Test func compressedBodiesSkipTheLengthCheck() throws {
        let content = try drive(
            RecordingHandler(), head: head(200, contentLength: 3, headers: [("Content-Encoding", "gzip")]),
            body: Data("decoded and longer".utf8))
        #expect(content.count == 18)
    }

    @Test func cancellation() throws {
        let handler = RecordingHandler()
        let driver = ResponseDriver(handler: handler)
        driver.receive(head: head(200))
        driver.receive(Data("abc".utf8))
        let error = try #require(driver.fail(CancellationError()).failure)
        #expect(error.code == .cancelled)
        #expect(handler.steps.last == .cleanUp)
        #expect(!driver.receive(Data("late chunk".utf8)))
        #expect(handler.received == Data("abc".utf8), "chunks after the outcome are ignored")
    }

    @Test func cancellationWinsOverAPendingRejection() throws {
        let driver = ResponseDriver(handler: Accumulator())
        driver.receive(head: head(500))
        #expect(driver.fail(HotPotatoError(.cancelled, reason: "stop")).failure?.code == .cancelled)
    }

    @Test func transportErrorsAreWrapped() throws {
        let driver = ResponseDriver(handler: RecordingHandler())
        let error = try #require(driver.fail(URLError(.cannotConnectToHost)).failure)
        #expect(error.code == .transportFailed)
        #expect(error.head == nil)
        #expect(error.underlying is URLError)
    }

    @Test func bytesBeforeTheHeadAreAnError() throws {
        let driver = ResponseDriver(handler: RecordingHandler())
        #expect(!driver.receive(Data("x".utf8)))
        #expect(driver.result?.failure?.code == .transportFailed)
    }

    @Test func endWithoutHeadIsAnError() {
        let handler = RecordingHandler()
        #expect(ResponseDriver(handler: handler).finish().failure?.code == .transportFailed)
        #expect(handler.steps == [.cleanUp])
    }

    @Test func finishErrorIsWrappedAndCleanedUp() throws {
        let handler = RecordingHandler()
        handler.failOnFinish = RecordingHandler.Boom()
        let error = try #require(expectFailure { try drive(handler, head: head(), body: Data("x".utf8)) })
        #expect(error.code == .handlerFailed)
        #expect(handler.steps.last == .cleanUp)
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }

    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
