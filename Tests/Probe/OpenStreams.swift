import Foundation
import HotPotato

/// `hotpotato-probe open-streams URL COUNT [urlsession|curl]`: opens COUNT event streams through one
/// session (`{i}` in URL replaced by each stream's index), waits until every one has delivered an
/// event, and prints how many threads the process has then, with its peak memory:
/// `opened=N threads=T peak_rss_kib=K`. The streams stay open until the process exits.
func openStreams(_ arguments: [String]) -> Never {
    guard (4...5).contains(arguments.count), let count = Int(arguments[3]) else {
        print("usage: hotpotato-probe open-streams URL COUNT [urlsession|curl]")
        exit(2)
    }
    let engine: Session.Engine = arguments.count == 5 && arguments[4] == "curl" ? .curl : .urlSession
    var configuration = Session.Configuration()
    configuration.maximumConnectionsPerHost = count
    configuration.requestTimeout = 120
    let session = Session(configuration: configuration, engine: engine)
    let opened = ProbeCounter()
    for index in 0..<count {
        guard let url = URL(string: arguments[2].replacingOccurrences(of: "{i}", with: String(index))) else { exit(2) }
        Task {
            do {
                for try await _ in session.get(url).streamEvents() { opened.increment() }
            } catch {
                print("error: \(error)")
            }
        }
    }
    let deadline = Date().addingTimeInterval(120)
    while opened.value < count && Date() < deadline { usleep(20_000) }
    // A moment for whatever the opening started to settle (threads that end when idle do not count).
    usleep(200_000)
    print("opened=\(opened.value) threads=\(threadCount()) peak_rss_kib=\(peakResidentKiB())")
    exit(opened.value == count ? 0 : 1)
}

/// A counter the streams' tasks share.
final class ProbeCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func increment() {
        lock.lock()
        count += 1
        lock.unlock()
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}

/// The threads of this process (`Threads:` of `/proc/self/status`), or -1 where unknown.
func threadCount() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Threads:") }) else { return -1 }
    return Int(line.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces)) ?? -1
}
