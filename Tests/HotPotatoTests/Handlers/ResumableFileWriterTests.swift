import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// A resumable ``FileWriter`` driven without a transport, as another HTTP client would drive it.
@Suite struct ResumableFileWriterTests {
    @Test func aContentCodedBodyIsKeptButNeverContinued() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("file.bin")
        let driver = ResponseDriver(handler: FileWriter(destination: destination, resumable: true))
        #expect(driver.receive(head: head(200, headers: [("ETag", "\"v1\""), ("Content-Encoding", "gzip")])))
        #expect(driver.receive(Data("decoded bytes".utf8)))
        #expect(driver.fail(CancellationError()).failure?.code == .cancelled)
        let partial = PartialDownload(destination: destination)
        #expect(partial.dataSize() == 13)
        let info = try #require(partial.loadInfo())
        #expect(info.validator == nil, "decoded bytes are not what a Range counts: no validator, so no resume")
    }

    @Test func anIdentityBodyIsKeptWithItsValidator() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("file.bin")
        let driver = ResponseDriver(handler: FileWriter(destination: destination, resumable: true))
        #expect(driver.receive(head: head(200, contentLength: 100, headers: [("ETag", "\"v1\"")])))
        #expect(driver.receive(Data(repeating: 1, count: 40)))
        #expect(driver.finish().failure?.code == .truncatedBody)
        let partial = PartialDownload(destination: destination)
        #expect(partial.dataSize() == 40)
        #expect(partial.loadInfo()?.etag == "\"v1\"")
        #expect(openDescriptors(under: scratch.url).isEmpty, "the lock is released")
        // The lock is released: another writer may take the partial file now.
        let lease = try #require(try partial.acquire())
        #expect(lease.sizeAtStart == 40)
    }

    @Test func aHeldPartialFileIsBusy() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("file.bin")
        let partial = PartialDownload(destination: destination)
        let lease = try #require(try partial.acquire())
        let driver = ResponseDriver(handler: FileWriter(destination: destination, resumable: true))
        #expect(!driver.receive(head: head(200, contentLength: 10)))
        #expect(driver.result?.failure?.code == .destinationBusy)
        lease.release()
        #expect(try scratch.entries() == [partial.dataURL.lastPathComponent], "left as the holder has it")
    }
}
