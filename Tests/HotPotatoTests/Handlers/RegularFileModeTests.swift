import Foundation
import Testing
@testable import HotPotato

/// The permissions FileWriter gives a placed file: 0666 under the process's umask, read from
/// /proc/self/status without Foundation.
struct RegularFileModeTests {
    @Test func agreesWithTheUmaskFoundationReads() throws {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
            #expect(POSIXFile.regularFileMode == 0o644, "no /proc: the default")
            return
        }
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Umask:") })
        let mask = try #require(mode_t(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8))
        #expect(POSIXFile.regularFileMode == 0o666 & ~mask)
    }

    @Test func readsTheUmaskLineAndNothingElse() {
        func umask(_ text: String) -> mode_t? { POSIXFile.umask(inStatus: ArraySlice(Array(text.utf8))) }
        #expect(umask("Name:\tx\nUmask:\t0022\nState:\tR (running)\n") == 0o22)
        #expect(umask("Umask:\t0077") == 0o77)
        #expect(umask("Umask: 0002 \t\n") == 0o2)
        #expect(umask("Name:\tUmask:\t0022\n") == nil, "only a line that starts with the key")
        #expect(umask("Umask:\t0028\n") == nil, "octal digits only")
        #expect(umask("Umask:\t00 22\n") == nil)
        #expect(umask("Umask:\t\n") == nil)
        #expect(umask("Name:\tx\n") == nil)
        #expect(umask("Umask:\t-022\n") == nil)
        #expect(umask("") == nil)
    }
}
