import Foundation
import Testing
@testable import HotPotato

/// `HotPotatoError` keeps its details in a shared box (issue 29: an error-sized slot in every
/// result, lock and async frame cost each open event stream kilobytes). It must still behave as
/// a value: a copy changed never changes the original, on any field.
@Suite struct HotPotatoErrorValueTests {
    static func full() -> HotPotatoError {
        var error = HotPotatoError(.unacceptableStatus, reason: "https://alice:secret@example.com/ failed",
                                   head: ResponseHead(status: 503, headers: ["Retry-After": "5"]),
                                   underlying: POSIXError(.ECONNRESET))
        error.errorBody = ErrorBody(data: Data("busy".utf8), isTruncated: false, contentType: nil)
        error.intermediate = .text("partial")
        error.byteOffset = 10
        error.line = 2
        error.column = 3
        error.elementIndex = 4
        error.limit = 5
        error.byteCount = 6
        error.keyPath = "a.b"
        error.encoding = "utf-8"
        error.path = "/tmp/x"
        error.attempts = 3
        error.expectedChecksum = Checksum("md5=d41d8cd98f00b204e9800998ecf8427e")
        error.actualChecksum = Checksum("md5=900150983cd24fb0d6963f7d28e17f72")
        return error
    }

    @Test func aChangedCopyLeavesTheOriginalAlone() {
        let original = Self.full()
        var copy = original
        copy.code = .timedOut
        copy.head = nil
        copy.errorBody = nil
        copy.intermediate = nil
        copy.underlying = nil
        copy.byteOffset = nil
        copy.line = nil
        copy.column = nil
        copy.elementIndex = nil
        copy.limit = nil
        copy.byteCount = nil
        copy.keyPath = nil
        copy.encoding = nil
        copy.path = nil
        copy.attempts = nil
        copy.expectedChecksum = nil
        copy.actualChecksum = nil
        copy.reason = "changed"

        #expect(original.code == .unacceptableStatus)
        #expect(original.status == 503)
        #expect(original.head?.headers["Retry-After"] == "5")
        #expect(original.serverMessage == "busy")
        #expect(original.intermediate == .text("partial"))
        #expect((original.underlying as? POSIXError)?.code == .ECONNRESET)
        #expect(original.byteOffset == 10 && original.line == 2 && original.column == 3)
        #expect(original.elementIndex == 4 && original.limit == 5 && original.byteCount == 6)
        #expect(original.keyPath == "a.b" && original.encoding == "utf-8" && original.path == "/tmp/x")
        #expect(original.attempts == 3)
        #expect(original.expectedChecksum?.hex == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(original.actualChecksum?.hex == "900150983cd24fb0d6963f7d28e17f72")
        #expect(original.reason == "https://<redacted>@example.com/ failed")

        #expect(copy.code == .timedOut && copy.reason == "changed")
        #expect(copy.head == nil && copy.errorBody == nil && copy.intermediate == nil && copy.underlying == nil)
        #expect(copy.byteOffset == nil && copy.line == nil && copy.column == nil && copy.elementIndex == nil)
        #expect(copy.limit == nil && copy.byteCount == nil && copy.keyPath == nil)
        #expect(copy.encoding == nil && copy.path == nil && copy.attempts == nil)
        #expect(copy.expectedChecksum == nil && copy.actualChecksum == nil)
    }

    @Test func aCopyKeepsEveryField() {
        let original = Self.full()
        var copy = original
        copy.attempts = 4 // the first change copies the box: every other field must come along
        #expect(copy.status == 503 && copy.serverMessage == "busy" && copy.intermediate == .text("partial"))
        #expect((copy.underlying as? POSIXError)?.code == .ECONNRESET)
        #expect(copy.byteOffset == 10 && copy.line == 2 && copy.column == 3 && copy.elementIndex == 4)
        #expect(copy.limit == 5 && copy.byteCount == 6 && copy.keyPath == "a.b")
        #expect(copy.encoding == "utf-8" && copy.path == "/tmp/x" && copy.reason == original.reason)
        #expect(copy.attempts == 4 && original.attempts == 3)
        #expect(copy.expectedChecksum == original.expectedChecksum && copy.actualChecksum == original.actualChecksum)
    }

    @Test func copiesChangedOnSeveralThreadsStayApart() async {
        let original = Self.full()
        let results = await withTaskGroup(of: (Int, Int?, Int64?).self) { group in
            for index in 0..<64 {
                group.addTask {
                    var copy = original
                    copy.attempts = index
                    copy.limit = Int64(index)
                    return (index, copy.attempts, copy.limit)
                }
            }
            var collected: [(Int, Int?, Int64?)] = []
            for await result in group { collected.append(result) }
            return collected
        }
        #expect(results.count == 64)
        for (index, attempts, limit) in results {
            #expect(attempts == index && limit == Int64(index))
        }
        #expect(original.attempts == 3 && original.limit == 5)
    }

    @Test func theErrorIsTwoWordsWide() {
        // The size is the point of the box: a result, a lock or a frame holding an error pays this.
        #expect(MemoryLayout<HotPotatoError>.size <= 2 * MemoryLayout<Int>.size)
    }
}
