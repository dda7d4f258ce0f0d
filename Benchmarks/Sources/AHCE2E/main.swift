// ahc-e2e: the AsyncHTTPClient peers of the end-to-end run, one case per process, printing
//   RESULT bytes=… seconds=… cpu=… requests=…
// like hotpotato-e2e's own cases. Usage: ahc-e2e CASE URL DESTINATION COUNT
// The scale scenarios' client: ahc-e2e scale ahc key=value… (see ScaleKit's ScaleJob).
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import ScaleKit
#if canImport(Glibc)
import Glibc
#endif

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

/// Streams a response body and counts it, as AsyncHTTPClient's users stream large bodies.
func streamed(_ client: HTTPClient, _ url: String) async throws -> Int64 {
    let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(300))
    guard response.status == .ok else { throw HTTPClientError.invalidURL }
    var bytes: Int64 = 0
    for try await buffer in response.body { bytes += Int64(buffer.readableBytes) }
    return bytes
}

func collected(_ client: HTTPClient, _ url: String) async throws -> Int64 {
    let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(300))
    guard response.status == .ok else { throw HTTPClientError.invalidURL }
    return Int64(try await response.body.collect(upTo: Int.max).readableBytes)
}

let arguments = CommandLine.arguments
if arguments.count >= 3, arguments[1] == "scale", arguments[2] == "ahc" {
    guard let job = try? ScaleJob(arguments: Array(arguments.dropFirst(3))) else {
        print("usage: ahc-e2e scale ahc key=value…")
        exit(2)
    }
    await ScaleDriver.run(job, client: AHCScaleClient(perHost: job.perHost))
}
guard arguments.count == 5, let count = Int(arguments[4]) else {
    print("usage: ahc-e2e CASE URL DESTINATION COUNT")
    exit(2)
}
let (name, url, destination) = (arguments[1], arguments[2], arguments[3])
/// Fetches a small JSON document and parses it with `JSONSerialization`, as an AsyncHTTPClient
/// user without a JSON library of their own would; its size.
func smallJSON(_ client: HTTPClient, _ url: String, requiring version: HTTPVersion? = nil) async throws -> Int64 {
    let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(300))
    guard response.status == .ok else { throw HTTPClientError.invalidURL }
    if let version, response.version != version {
        throw HTTPClientError.invalidURL
    }
    let body = try await response.body.collect(upTo: 1 << 20)
    let data = Data(body.readableBytesView)
    guard let array = try JSONSerialization.jsonObject(with: data) as? [Any], !array.isEmpty else {
        throw HTTPClientError.invalidURL
    }
    return Int64(data.count)
}

/// A client that trusts the benchmark's certificate authority (`HOTPOTATO_E2E_CA`) besides the
/// system's, and speaks HTTP/2 where the server offers it (AsyncHTTPClient's default, set again
/// here on purpose). Kept until the process exits: shutting it down is not part of a case.
nonisolated(unsafe) var keptClient: HTTPClient?

func secureClient() -> HTTPClient {
    var tls = TLSConfiguration.makeClientConfiguration()
    if let authority = ProcessInfo.processInfo.environment["HOTPOTATO_E2E_CA"] {
        tls.additionalTrustRoots = [.file(authority)]
    }
    var configuration = HTTPClient.Configuration()
    configuration.tlsConfiguration = tls
    configuration.httpVersion = .automatic
    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    keptClient = client
    return client
}

/// Runs one case; returns the bytes received and the number of requests.
func perform(_ name: String, _ url: String, _ destination: String, _ count: Int) async throws -> (Int64, Int) {
    let client = HTTPClient.shared
    switch name {
    case "ahc-file":
        let delegate = try FileDownloadDelegate(path: destination)
        let progress = try await client.execute(request: HTTPClient.Request(url: url), delegate: delegate).get()
        return (Int64(progress.receivedBytes), 1)
    case "ahc-stream":
        return (try await streamed(client, url), 1)
    case "ahc-data":
        return (try await collected(client, url), 1)
    case "ahc-parallel":
        let total = try await withThrowingTaskGroup(of: Int64.self) { group in
            for _ in 0..<count { group.addTask { try await streamed(client, url) } }
            return try await group.reduce(0, +)
        }
        return (total, count)
    case "ahc-small":
        var bytes: Int64 = 0
        for _ in 0..<count { bytes += try await smallJSON(client, url) }
        return (bytes, count)
    case let name where name.hasPrefix("ahc-small") && Int(name.dropFirst("ahc-small".count)) != nil:
        // `ahc-small16`, `ahc-small64`: that many tasks, each making its share of requests in turn.
        let width = Int(name.dropFirst("ahc-small".count)) ?? 1
        let total = try await withThrowingTaskGroup(of: Int64.self) { group in
            for _ in 0..<width {
                group.addTask {
                    var bytes: Int64 = 0
                    for _ in 0..<(count / width) { bytes += try await smallJSON(client, url) }
                    return bytes
                }
            }
            return try await group.reduce(0, +)
        }
        return (total, count / width * width)
    case "ahc-h2burst":
        // `count` requests at once over HTTPS, each required to have come over HTTP/2.
        let client = secureClient()
        let total = try await withThrowingTaskGroup(of: Int64.self) { group in
            for _ in 0..<count { group.addTask { try await smallJSON(client, url, requiring: .http2) } }
            return try await group.reduce(0, +)
        }
        return (total, count)
    default:
        throw HTTPClientError.invalidURL
    }
}

do {
    let cpuBefore = cpuSeconds()
    let start = DispatchTime.now().uptimeNanoseconds
    let (bytes, requests) = try await perform(name, url, destination, count)
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    print("RESULT bytes=\(bytes) seconds=\(seconds) cpu=\(cpuSeconds() - cpuBefore) requests=\(requests)")
    // Only a regular file: run by hand with /dev/null as the destination, as root, this once
    // removed the null device.
    var status = stat()
    if lstat(destination, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG { unlink(destination) }
    exit(0)
} catch {
    print("error: \(error)")
    exit(1)
}
