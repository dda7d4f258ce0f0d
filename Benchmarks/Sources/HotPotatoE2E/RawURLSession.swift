import BenchmarkFixtures
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// URLSession as its users use it, without HotPotato: the peers HotPotato's URLSession engine is
/// measured against.
enum RawURLSession {
    /// Fetches a small JSON document with `data(from:)` and parses it with `JSONSerialization`, as
    /// a URLSession user would; its size.
    static func smallJSON(_ url: URL) async throws -> Int64 {
        let (data, _) = try await URLSession.shared.data(from: url)
        guard let array = try JSONSerialization.jsonObject(with: data) as? [Any], !array.isEmpty else {
            throw HarnessError("empty JSON")
        }
        return Int64(data.count)
    }

    static func run(_ job: String, url: URL, destination: URL, count: Int) async throws -> (Int64, Int) {
        switch job {
        case "download-completion":
            return (try await downloadWithCompletionHandler(url, to: destination), 1)
        case "download-delegate":
            return (try await DownloadDelegate.run(url, to: destination), 1)
        case "data":
            let (data, _) = try await URLSession.shared.data(from: url)
            return (Int64(data.count), 1)
        case "json":
            let (data, _) = try await URLSession.shared.data(from: url)
            _ = try JSONSerialization.jsonObject(with: data)
            return (Int64(data.count), 1)
        case "delegate-filehandle":
            return (try await DataDelegate.run([url], writingTo: destination), 1)
        case "delegate-discard":
            return (try await DataDelegate.run([url], writingTo: nil), 1)
        case "parallel":
            return (try await DataDelegate.run(Array(repeating: url, count: count), writingTo: nil), count)
        case "small":
            var bytes: Int64 = 0
            for _ in 0..<count { bytes += try await smallJSON(url) }
            return (bytes, count)
        case let job where job.hasPrefix("small") && Int(job.dropFirst("small".count)) != nil:
            let width = Int(job.dropFirst("small".count)) ?? 1
            let total = try await withThrowingTaskGroup(of: Int64.self) { group in
                for _ in 0..<width {
                    group.addTask {
                        var bytes: Int64 = 0
                        for _ in 0..<(count / width) { bytes += try await smallJSON(url) }
                        return bytes
                    }
                }
                return try await group.reduce(0, +)
            }
            return (total, count / width * width)
        default:
            throw HarnessError("unknown URLSession job \(job)")
        }
    }

    private static func downloadWithCompletionHandler(_ url: URL, to destination: URL) async throws -> Int64 {
        try await withCheckedThrowingContinuation { continuation in
            URLSession.shared.downloadTask(with: url) { location, _, error in
                do {
                    if let error { throw error }
                    guard let location else { throw HarnessError("no file") }
                    try FileManager.default.moveItem(at: location, to: destination)
                    let size = try FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? Int ?? 0
                    continuation.resume(returning: Int64(size))
                } catch {
                    continuation.resume(throwing: error)
                }
            }.resume()
        }
    }
}

/// A `downloadTask` with a delegate that moves the finished file into place.
final class DownloadDelegate: NSObject, URLSessionDownloadDelegate, @unchecked Sendable {
    private let destination: URL
    private var continuation: CheckedContinuation<Int64, any Error>?
    private var moved: Result<Int64, any Error> = .failure(HarnessError("no file"))

    private init(destination: URL) {
        self.destination = destination
    }

    static func run(_ url: URL, to destination: URL) async throws -> Int64 {
        let delegate = DownloadDelegate(destination: destination)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: .default, delegate: delegate, delegateQueue: queue)
        defer { session.finishTasksAndInvalidate() }
        return try await withCheckedThrowingContinuation { continuation in
            queue.addOperation {
                delegate.continuation = continuation
                session.downloadTask(with: url).resume()
            }
        }
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        moved = Result {
            try FileManager.default.moveItem(at: location, to: destination)
            return Int64(try FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? Int ?? 0)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error {
            continuation?.resume(throwing: error)
        } else {
            continuation?.resume(with: moved)
        }
        continuation = nil
    }
}

/// A `URLSessionDataDelegate` on a serial queue that writes each chunk to a `FileHandle` (or
/// just counts it): the floor of what any library built on URLSession's data delegate can do.
final class DataDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let file: FileHandle?
    private var bytes: Int64 = 0
    private var remaining: Int
    private var continuation: CheckedContinuation<Int64, any Error>?

    private init(file: FileHandle?, tasks: Int) {
        self.file = file
        self.remaining = tasks
    }

    static func run(_ urls: [URL], writingTo destination: URL?) async throws -> Int64 {
        var file: FileHandle?
        if let destination {
            _ = FileManager.default.createFile(atPath: destination.path, contents: nil)
            file = try FileHandle(forWritingTo: destination)
        }
        defer { try? file?.close() }
        let delegate = DataDelegate(file: file, tasks: urls.count)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let configuration = URLSessionConfiguration.default
        configuration.httpMaximumConnectionsPerHost = max(6, urls.count)
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
        defer { session.finishTasksAndInvalidate() }
        return try await withCheckedThrowingContinuation { continuation in
            queue.addOperation {
                delegate.continuation = continuation
                for url in urls { session.dataTask(with: url).resume() }
            }
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        bytes += Int64(data.count)
        if let file { try? file.write(contentsOf: data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error {
            continuation?.resume(throwing: error)
            continuation = nil
            return
        }
        remaining -= 1
        if remaining == 0 {
            continuation?.resume(returning: bytes)
            continuation = nil
        }
    }
}
