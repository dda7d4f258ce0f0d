import Foundation
import Testing
@testable import HotPotato

/// The permissions FileWriter gives a placed file: 0666 under the process's umask, read from
/// /proc/self/status without Foundation, or learnt from a file made with 0666 where there is no
/// /proc (Apple platforms).
struct RegularFileModeTests {
    @Test func agreesWithTheUmaskFoundationReads() throws {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
            #expect(POSIXFile.regularFileMode == POSIXFile.modeOfNewFile(), "no /proc: the mode a new file gets")
            return
        }
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Umask:") })
        let mask = try #require(mode_t(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8))
        #expect(POSIXFile.regularFileMode == 0o666 & ~mask)
    }

    /// The other way to learn it gives the same mode, and leaves no file behind.
    @Test func aNewFilesModeIsTheSame() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hotpotato-mode-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(POSIXFile.modeOfNewFile(in: directory.path) == POSIXFile.regularFileMode)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        #expect(POSIXFile.modeOfNewFile(in: "/nonexistent/hotpotato") == nil)
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
