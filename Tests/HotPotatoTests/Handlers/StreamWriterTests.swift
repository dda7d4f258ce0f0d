import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

@Suite struct StreamWriterTests {
    @Test(arguments: Chunking.allCases)
    func writesEveryChunkToAnOutputStream(chunking: Chunking) throws {
        let stream = OutputStream.toMemory()
        let body = patternedData(count: 70_000)
        let written = try drive(StreamWriter(stream: stream), head: head(200), body: body, chunking: chunking)
        #expect(written == Int64(body.count))
        #expect(stream.property(forKey: .dataWrittenToMemoryStreamKey) as? Data == body)
        #expect(stream.streamStatus == .closed, "a stream the writer opened is closed at the end")
    }

    @Test(arguments: Chunking.allCases)
    func writesToAFileHandle(chunking: Chunking) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("out.bin")
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        let handle = try FileHandle(forWritingTo: file)
        let body = patternedData(count: 50_000)
        #expect(try drive(StreamWriter(fileHandle: handle), head: head(200), body: body, chunking: chunking) == 50_000)
        try handle.close()
        #expect(try Data(contentsOf: file) == body)
    }

    @Test func leavesAStreamTheCallerOpenedOpen() throws {
        let stream = OutputStream.toMemory()
        stream.open()
        try drive(StreamWriter(stream: stream), head: head(200), body: Data("abc".utf8))
        #expect(stream.streamStatus == .open)
        stream.close()
    }

    @Test func rejectedResponseNeverTouchesTheStream() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("never.txt")
        let stream = try #require(OutputStream(url: file, append: false))
        let error = expectFailure { try drive(StreamWriter(stream: stream), head: head(500, contentType: "text/plain"), body: Data("boom".utf8)) }
        #expect(error?.code == .unacceptableStatus)
        #expect(error?.errorBody?.text == "boom")
        #expect(stream.streamStatus == .notOpen)
        #expect(try scratch.entries().isEmpty, "no file is created for a rejected response")
        #expect(openDescriptors(under: scratch.url).isEmpty)
    }

    @Test func fullStreamStopsTheTransfer() throws {
        var buffer = [UInt8](repeating: 0, count: 10)
        try buffer.withUnsafeMutableBufferPointer { pointer in
            let stream = OutputStream(toBuffer: pointer.baseAddress!, capacity: 10)
            let error = try #require(expectFailure {
                try drive(StreamWriter(stream: stream), head: head(200), body: Data("0123456789abcdef".utf8), chunking: .odd)
            })
            #expect(error.code == .writeFailed)
            #expect(error.byteOffset == 7, "the offset of the chunk that could not be written")
            #expect(error.underlying != nil, "the stream's own error")
            #expect(stream.streamStatus != .open, "cleaned up")
        }
        #expect(buffer.starts(with: "0123456".utf8), "what was written before the failure stays written")
    }

    @Test func fileHandleErrorStopsTheTransfer() throws {
        let handle = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        defer { try? handle.close() }
        let error = try #require(expectFailure {
            try drive(StreamWriter(fileHandle: handle), head: head(200), body: Data("no room".utf8))
        })
        #expect(error.code == .writeFailed)
        #expect(error.underlying != nil)
        #expect(error.byteOffset == 0)
    }

    @Test func streamThatCannotOpenFailsAtTheHead() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let stream = try #require(OutputStream(url: scratch.url.appendingPathComponent("missing/dir/file"), append: false))
        let error = expectFailure { try drive(StreamWriter(stream: stream), head: head(200), body: Data("x".utf8)) }
        #expect(error?.code == .writeFailed)
    }

    /// Under a retry policy, a body cut short after bytes were written is not fetched again
    /// (the file would hold its first bytes twice). Both engines.
    @Test(arguments: allEngines) func writtenBytesAreNeverWrittenTwice(engine: Session.Engine) async throws {
        let fault = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("out")
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        let retrying = RetryPolicy(maximumAttempts: 3, initialDelay: 0)
        let error = await expectFailure {
            try await testSession(engine: engine).get(fault.url("/short?declared=100000&sent=30000"))
                .retry(retrying).handled(by: StreamWriter(fileHandle: handle)).content
        }
        #expect(error?.code == .truncatedBody)
        #expect(error?.attempts == 1, "not retried")
        #expect(try Data(contentsOf: file).count == 30000)
    }
}

