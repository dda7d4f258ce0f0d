import Foundation
import HotPotato

// Cookies: -b FILE reads a Netscape cookie file into the session's jar, -c FILE writes the jar at
// the end, as curl does. (-b name=value is a Cookie header: see GetOptions.addCookieHeader.)
extension GetCommand {
    /// Reads the cookie files of `-b` into `jar`. A file that does not exist is skipped, as curl
    /// skips it (the usual `-b jar -c jar` of a first run); one that cannot be read is reported
    /// and skipped.
    func loadCookies(into jar: CookieJar) {
        for path in options.cookieFiles {
            do {
                try jar.loadNetscapeCookieFile(at: URL(fileURLWithPath: path))
            } catch {
                if (error.underlying as? POSIXError)?.code == .ENOENT { continue }
                Console.error("potato: warning: cookies not read: \(TerminalText.safe(error.reason))\n")
            }
        }
    }

    /// Writes `jar` where `-c` says (standard output for `-`), whatever the call's outcome, and
    /// returns the exit status: `status`, or ``ExitStatus/fileError`` when a successful call's
    /// cookies could not be written.
    func saveCookies(_ jar: CookieJar, after status: ExitStatus) -> ExitStatus {
        guard let path = options.cookieJar else { return status }
        if path == "-" {
            Console.output(jar.netscapeCookieFile())
            return status
        }
        do {
            try jar.writeNetscapeCookieFile(to: URL(fileURLWithPath: path))
            return status
        } catch {
            Console.error("potato: cannot write the cookie jar: \(TerminalText.safe(error.reason))\n")
            return status == .success ? .fileError : status
        }
    }
}
