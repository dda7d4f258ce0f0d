import Foundation
import Testing
@testable import HotPotato

/// The umask read from /proc/self/status, byte by byte.
@Suite struct POSIXFileUmaskTests {
    static func parse(_ text: String) -> mode_t? {
        POSIXFile.umask(inStatus: Array(text.utf8)[...])
    }

    @Test func readsTheUmaskLine() {
        #expect(Self.parse("Name:\tx\nUmask:\t0022\nState:\tR (running)\n") == 0o022)
        #expect(Self.parse("Umask:\t0077") == 0o077)
        #expect(Self.parse("Name:\tUmask:\t0777\nUmask: 0002 \n") == 0o002, "only a line that starts with it")
    }

    @Test func anythingElseIsNoUmask() {
        #expect(Self.parse("Name:\tx\nState:\tR\n") == nil)
        #expect(Self.parse("Umask:\t\n") == nil)
        #expect(Self.parse("Umask:\t0089\n") == nil)
        #expect(Self.parse("Umask:\t-022\n") == nil)
        #expect(Self.parse("Umask:\t00000022\n") == nil)
        #expect(Self.parse("") == nil)
    }

    #if os(Linux)
    @Test func theProcessModeFollowsIt() throws {
        let status = try Data(contentsOf: URL(fileURLWithPath: "/proc/self/status"))
        let mask = try #require(POSIXFile.umask(inStatus: Array(status)[...]))
        #expect(POSIXFile.regularFileMode == 0o666 & ~mask)
    }
    #endif
}
