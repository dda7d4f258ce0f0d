// hotpotato-probe: downloads a URL through HotPotato with a deliberately slow handler, in a
// process of its own, and prints the peak resident memory — so that tests can check the memory
// bound without other tests' allocations in the way.
//
//   hotpotato-probe URL DELAY_MICROSECONDS_PER_16_KIB HIGH_WATER_MARK_BYTES [urlsession|curl]
//     (with HOTPOTATO_PROBE_CA=FILE in the environment, FILE's authorities are trusted)
//   hotpotato-probe stream-json URL KEY_PATH DELAY_MICROSECONDS_PER_ELEMENT [urlsession|curl]
//   hotpotato-probe parallel URL COUNT [urlsession|curl]   (COUNT downloads at once, discarded)
//   hotpotato-probe upload-multipart URL FILE [urlsession|curl]   (FILE in a multipart form, POSTed)
//
// Prints `bytes=<n> peak_rss_kib=<n>` (or `elements=<n> peak_rss_kib=<n>`; for an upload,
// `sent=<body bytes> received=<the server's count> peak_rss_kib=<n>`) and exits 0, or prints
// the error (and `error_code=<code> peak_rss_kib=<n>`) and exits 1.
import Foundation
import HotPotato

/// Discards the body, spending `delay` on every 16 KiB (URLSession's chunk size) like a slow
/// consumer would, however the bytes are grouped into chunks.
final class SlowDiscarder: SelectiveDiscarder<Int64> {
    let delay: TimeInterval
    var bytes: Int64 = 0

    init(delay: TimeInterval) {
        self.delay = delay
        super.init()
    }

    override func receive(_ chunk: Data) throws {
        bytes += Int64(chunk.count)
        let end = Date().addingTimeInterval(delay * Double(chunk.count) / 16_384)
        while Date() < end {}
    }

    override func finish() throws -> Int64 { bytes }
}

func peakResidentKiB() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
}

/// An element of the streamed array: whatever it holds, its `id`.
struct Item: Decodable, Sendable {
    let id: Int
    let name: String
}

/// Streams the array at a key path with a consumer that spends `delay` on every element.
func streamJSON(_ arguments: [String]) -> Never {
    guard (5...6).contains(arguments.count), let url = URL(string: arguments[2]), let delay = Double(arguments[4]) else {
        print("usage: hotpotato-probe stream-json URL KEY_PATH DELAY_MICROSECONDS_PER_ELEMENT [urlsession|curl]")
        exit(2)
    }
    let engine: Session.Engine = arguments.count == 6 && arguments[5] == "curl" ? .curl : .urlSession
    let session = Session(engine: engine)
    let stream = session.get(url).streamJSONArray(of: Item.self, atKeyPath: arguments[3].isEmpty ? nil : arguments[3])
    runThenExit {
        var count = 0
        do {
            for try await item in stream {
                guard item.id == count else {
                    print("error: element \(count) has id \(item.id)")
                    return 1
                }
                count += 1
                let end = Date().addingTimeInterval(delay / 1_000_000)
                while Date() < end {}
            }
            print("elements=\(count) peak_rss_kib=\(peakResidentKiB())")
            return 0
        } catch {
            printFailure(error)
            return 1
        }
    }
}

/// Downloads the URL `COUNT` times at once through one session, discarding the bodies.
func parallel(_ arguments: [String]) -> Never {
    guard (4...5).contains(arguments.count), let url = URL(string: arguments[2]), let count = Int(arguments[3]) else {
        print("usage: hotpotato-probe parallel URL COUNT [urlsession|curl]")
        exit(2)
    }
    let engine: Session.Engine = arguments.count == 5 && arguments[4] == "curl" ? .curl : .urlSession
    let session = Session(engine: engine)
    runThenExit {
        do {
            let total = try await withThrowingTaskGroup(of: Int64.self) { group in
                for _ in 0..<count {
                    group.addTask { try await session.get(url).handled(by: SlowDiscarder(delay: 0)).content }
                }
                return try await group.reduce(0, +)
            }
            print("bytes=\(total) peak_rss_kib=\(peakResidentKiB())")
            return 0
        } catch {
            printFailure(error)
            return 1
        }
    }
}

/// What the test server says it received: `{"length":N,…}`.
struct ReceivedCount: Decodable, Sendable {
    let length: Int64
}

/// POSTs a multipart form of a text field and FILE to URL, reporting the upload's progress to
/// nowhere (so that progress is part of what is measured), and prints the body's length, the
/// server's count and the peak.
func uploadMultipart(_ arguments: [String]) -> Never {
    guard (4...5).contains(arguments.count), let url = URL(string: arguments[2]) else {
        print("usage: hotpotato-probe upload-multipart URL FILE [urlsession|curl]")
        exit(2)
    }
    let engine: Session.Engine = arguments.count == 5 && arguments[4] == "curl" ? .curl : .urlSession
    var configuration = Session.Configuration()
    configuration.requestTimeout = 120
    configuration.resourceTimeout = 600
    let session = Session(configuration: configuration, engine: engine)
    var form = MultipartFormData()
    form.append("a field before the file", name: "note")
    form.append(fileAt: URL(fileURLWithPath: arguments[3]), name: "file", contentType: "application/octet-stream")
    let sent = Locked(Int64(0))
    let progressQueue = DispatchQueue(label: "probe.upload-progress")
    let request = session.post(url).body(multipart: form)
        .onUploadProgress(queue: progressQueue) { progress in sent.withLock { $0 = progress.bytesSent } }
        .as(ReceivedCount.self)
    runThenExit {
        do {
            let received = try await request.content
            progressQueue.sync {}  // the last update was queued before the call completed
            print("sent=\(sent.withLock { $0 }) received=\(received.length) peak_rss_kib=\(peakResidentKiB())")
            return 0
        } catch {
            printFailure(error)
            return 1
        }
    }
}

/// A value behind a lock, for the progress callback.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

/// Runs `work` in a task, waits for it, and exits with the status it returns.
func runThenExit(_ work: @escaping @Sendable () async -> Int32) -> Never {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var code: Int32 = 0
    Task {
        code = await work()
        done.signal()
    }
    done.wait()
    exit(code)
}

/// Prints a failure: the error, and for a HotPotato error its code and the peak so far.
func printFailure(_ error: any Error) {
    print("error: \(error)")
    if let error = error as? HotPotatoError { print("error_code=\(error.code) peak_rss_kib=\(peakResidentKiB())") }
}

let arguments = CommandLine.arguments
if arguments.count > 1 && arguments[1] == "stream-json" { streamJSON(arguments) }
if arguments.count > 1 && arguments[1] == "parallel" { parallel(arguments) }
if arguments.count > 1 && arguments[1] == "open-streams" { openStreams(arguments) }
if arguments.count > 1 && arguments[1] == "upload-multipart" { uploadMultipart(arguments) }
guard (4...5).contains(arguments.count), let url = URL(string: arguments[1]), let delay = Double(arguments[2]),
      let highWaterMark = Int(arguments[3]) else {
    print("usage: hotpotato-probe URL DELAY_MICROSECONDS_PER_16_KIB HIGH_WATER_MARK_BYTES [urlsession|curl]")
    exit(2)
}
let engine: Session.Engine = arguments.count == 5 && arguments[4] == "curl" ? .curl : .urlSession
var configuration = Session.Configuration()
configuration.memoryHighWaterMark = highWaterMark
// A certificate authority to trust, for an https URL of the tests' own servers.
if let authorities = ProcessInfo.processInfo.environment["HOTPOTATO_PROBE_CA"] {
    configuration.certificateAuthorities = URL(fileURLWithPath: authorities)
}
let session = Session(configuration: configuration, engine: engine)
let request = session.get(url).handled(by: SlowDiscarder(delay: delay / 1_000_000))
let done = DispatchSemaphore(value: 0)
nonisolated(unsafe) var exitCode: Int32 = 0
request.response(queue: .global()) { result in
    switch result {
    case .success(let response):
        print("bytes=\(response.content) peak_rss_kib=\(peakResidentKiB())")
    case .failure(let error):
        print("error: \(error)")
        print("error_code=\(error.code) peak_rss_kib=\(peakResidentKiB())")
        exitCode = 1
    }
    done.signal()
}
done.wait()
exit(exitCode)
