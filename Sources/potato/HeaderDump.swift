import Foundation
import HotPotato
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `-D FILE` (`--dump-header`), as curl's: the head of every response — each redirect's, each
/// attempt's — written to FILE as it arrives (`-`: standard output, before the body), the status
/// line and the fields with CRLF after each, an empty line after each head.
final class HeaderDump: @unchecked Sendable {
    private let descriptor: Int32

    /// Opens (creates or empties) `path`, close-on-exec; throws when it cannot be opened.
    init(path: String) throws(UsageError) {
        if path == "-" {
            descriptor = STDOUT_FILENO
            return
        }
        let opened = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard opened >= 0 else {
            throw UsageError("-D \"\(path)\" cannot be written: \(String(cString: strerror(errno)))")
        }
        descriptor = opened
    }

    deinit {
        if descriptor != STDOUT_FILENO { _ = close(descriptor) }
    }

    /// Writes `head`.
    func write(_ head: ResponseHead) {
        Console.write(descriptor, Data(GetCommand.headText(head).utf8))
    }

    /// The monitor that writes the heads of the redirects a request follows, on `queue`.
    func redirectMonitor(queue: DispatchQueue) -> any EventMonitor {
        RedirectHeads(dump: self, queue: queue)
    }

    private struct RedirectHeads: EventMonitor {
        let dump: HeaderDump
        let queue: DispatchQueue

        func receive(_ event: RequestEvent) {
            if case .redirected(let head, _) = event.kind { dump.write(head) }
        }
    }
}
