import Foundation
@testable import HotPotato

/// Builds response heads for tests.
func head(
    _ status: Int = 200,
    contentType: String? = nil,
    contentLength: Int? = nil,
    method: String = "GET",
    headers extra: [(String, String)] = []
) -> ResponseHead {
    var headers = HTTPHeaders(extra)
    if let contentType { headers.add(name: "Content-Type", value: contentType) }
    if let contentLength { headers.add(name: "Content-Length", value: String(contentLength)) }
    return ResponseHead(status: status, headers: headers, url: URL(string: "http://127.0.0.1/test"), requestMethod: method)
}

/// Runs `handler` over `body` split as `chunking` says, as a transport would.
@discardableResult
func drive<Handler: ContentHandler>(
    _ handler: Handler,
    head: ResponseHead,
    body: Data,
    chunking: Chunking = .whole
) throws(HotPotatoError) -> Handler.Content {
    try ResponseDriver.run(handler, head: head, chunks: chunking.split(body))
}

/// Runs `work`, which must throw a `HotPotatoError`, and returns that error.
func expectFailure<T>(_ work: () throws -> T) -> HotPotatoError? {
    do {
        _ = try work()
        return nil
    } catch let error as HotPotatoError {
        return error
    } catch {
        return nil
    }
}

/// Bytes of a given length with a repeating, position-dependent pattern (so a reordered or
/// missing chunk changes the content).
func patternedData(count: Int) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ ($0 >> 8)) })
}

/// Whether `actual` holds exactly `expected`: for `#expect` on large bodies, where `==` between
/// two unequal `Data` would have Swift Testing compute their difference byte by byte — a time
/// quadratic in their size, which hung a test process for minutes.
func sameBytes(_ actual: Data?, _ expected: Data) -> Bool {
    actual == expected
}
