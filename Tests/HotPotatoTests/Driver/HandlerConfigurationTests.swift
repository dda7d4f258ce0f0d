import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import HotPotato

/// Handlers configured by values (``ResponseGate``, `maximumBodySize`), the bare initialisers'
/// natural content types, and the public capabilities (chunk borrowing, request adapting) that
/// let a transport other than `Session` drive every handler. Deliberately imports HotPotato
/// without `@testable`: everything here must work from outside the package.
@Suite struct HandlerConfigurationTests {
    private static let jsonHead = ResponseHead(
        status: 200, headers: ["Content-Type": "application/json"], url: URL(string: "http://127.0.0.1/"), requestMethod: "GET")
    private static let plainHead = ResponseHead(
        status: 200, headers: ["Content-Type": "text/plain"], url: URL(string: "http://127.0.0.1/"), requestMethod: "GET")

    // MARK: Bare initialisers mean the natural content type in every expression

    @Test func bareInitialisersInferTheirNaturalContentInsideExpressions() throws {
        // Each of these once chose the generic initialiser with another content type, and the
        // handler failed at run time with handlerFailed ("must override content(from:)").
        #expect((try? ResponseDriver.run(Accumulator(), head: Self.plainHead, chunks: [Data("hi".utf8)])) != nil)
        #expect(try ResponseDriver.run(JSONParser(), head: Self.jsonHead, chunks: [Data("[1]".utf8)]) == [1])
        #expect(try ResponseDriver.run(StringConverter(), head: Self.plainHead, chunks: [Data("hi".utf8)]) == "hi")
        #expect((try? ResponseDriver.run(SelectiveDiscarder(), head: Self.plainHead, chunks: [Data("x".utf8)])) != nil)
        #expect(try ResponseDriver.run(Accumulator(maximumBodySize: 10), head: Self.plainHead, chunks: [Data("hi".utf8)]) == Data("hi".utf8))
        #expect(try ResponseDriver.run(JSONParser(gate: .any), head: Self.plainHead, chunks: [Data("[2]".utf8)]) == [2])
        let data = Accumulator()
        let text = StringConverter()
        let json = JSONParser()
        let discarder = SelectiveDiscarder()
        #expect(type(of: data) == Accumulator<Data>.self)
        #expect(type(of: text) == StringConverter<String>.self)
        #expect(type(of: json) == JSONParser<JSON>.self)
        #expect(type(of: discarder) == SelectiveDiscarder<Void>.self)
        #expect(type(of: JSONParser<JSONDocument>()) == JSONParser<JSONDocument>.self)
    }

    /// A subclass with another content type inherits `init()`; one that keeps the natural type
    /// declares an initialiser of its own through the designated `init(accepting:…)`.
    @Test func subclassesInitialiseThroughTheDesignatedInitialiser() throws {
        final class Length: Accumulator<Int> {
            override func content(from body: Data) throws -> Int { body.count }
        }
        final class Tagged: JSONParser<JSON> {
            let tag: String
            init(tag: String) {
                self.tag = tag
                super.init(accepting: .any, maximumBodySize: 100)
            }
        }
        #expect(try ResponseDriver.run(Length(), head: Self.plainHead, chunks: [Data("abc".utf8)]) == 3)
        let tagged = Tagged(tag: "t")
        #expect(try ResponseDriver.run(tagged, head: Self.plainHead, chunks: [Data("true".utf8)]) == true)
        #expect(tagged.maximumBodySize == 100 && tagged.gate == .any)
    }

    // MARK: Gate and limit as values

    @Test func theGateIsOneValueWithOneDefaultPerHandler() {
        #expect(Accumulator().gate == .successful)
        #expect(StringConverter().gate == .successful)
        #expect(JSONParser().gate == .json)
        #expect(ResponseGate.json.contentTypes == [.json, .anyJSON])
        #expect(FileWriter(destination: URL(fileURLWithPath: "/tmp/x")).gate == .successful)
        let parser = JSONParser(gate: ResponseGate(statusCodes: [200, 404]))
        #expect(parser.acceptableStatusCodes == [200, 404], "the gate's statuses, through the old property")
        #expect(parser.acceptableContentTypes.isEmpty)
        #expect(Accumulator().maximumBodySize == 64 * 1024 * 1024)
        #expect(JSONParser().maximumBodySize == Accumulator().maximumBodySize)
        #expect(SelectiveDiscarder().maximumBodySize == .max)
        #expect(StreamWriter(fileHandle: .nullDevice).maximumBodySize == .max)
    }

    @Test func everyHandlerKeepsToItsSizeLimit() throws {
        let head = ResponseHead(status: 200, headers: ["Content-Length": "20"])
        let body = [Data(count: 10), Data(count: 10)]
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("hp-limit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let handlers: [(String, () throws(HotPotatoError) -> Void)] = [
            ("discarder", { () throws(HotPotatoError) in _ = try ResponseDriver.run(SelectiveDiscarder(maximumBodySize: 15), head: head, chunks: body) }),
            ("stream", { () throws(HotPotatoError) in _ = try ResponseDriver.run(StreamWriter(fileHandle: .nullDevice, maximumBodySize: 15), head: head, chunks: body) }),
            ("file", { () throws(HotPotatoError) in _ = try ResponseDriver.run(FileWriter(destination: scratch, maximumBodySize: 15), head: head, chunks: body) }),
        ]
        for (name, run) in handlers {
            do {
                try run()
                Issue.record("\(name): a declared length over the limit was accepted")
            } catch {
                #expect(error.code == .bodyTooLarge, "\(name)")
                #expect(error.limit == 15 && error.byteCount == 20, "\(name)")
            }
        }
        // Without a declared length, the chunk that crosses the limit stops the body.
        do {
            _ = try ResponseDriver.run(
                StreamWriter(fileHandle: .nullDevice, maximumBodySize: 15), head: ResponseHead(status: 200), chunks: body)
            Issue.record("a body over the limit was written")
        } catch {
            #expect(error.code == .bodyTooLarge && error.byteOffset == 10)
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.path), "no file for a refused body")
    }

    // MARK: Chunk borrowing is an opt-in each class declares

    @Test func chunkBorrowingIsDeclaredPerClass() {
        final class Keeper: Accumulator<Data> {}
        final class Copier: StreamWriter {
            override var receivesBorrowedChunks: Bool { true }
        }
        #expect(Accumulator().receivesBorrowedChunks)
        #expect(StringConverter().receivesBorrowedChunks)
        #expect(JSONParser().receivesBorrowedChunks)
        #expect(SelectiveDiscarder().receivesBorrowedChunks)
        #expect(FileWriter(destination: URL(fileURLWithPath: "/tmp/x")).receivesBorrowedChunks)
        #expect(StreamWriter(fileHandle: .nullDevice).receivesBorrowedChunks)
        #expect(!Keeper().receivesBorrowedChunks, "a subclass might keep its chunks: copies unless it says otherwise")
        #expect(Copier(fileHandle: .nullDevice).receivesBorrowedChunks, "a subclass may opt in")
        let capability: any ChunkBorrowing = JSONParser()
        #expect(capability.receivesBorrowedChunks)
    }

    // MARK: A resumable FileWriter through ResponseDriver, with the public capability

    @Test func aResumableFileWriterResumesThroughResponseDriver() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hp-driver-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("file.bin")
        let url = URL(string: "http://127.0.0.1/file.bin")!
        let whole = Data((0..<1_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })

        // First attempt: 400 bytes, then the connection drops.
        let first = ResponseDriver(handler: FileWriter(destination: destination, resumable: true))
        var request = URLRequest(url: url)
        try first.adapt(&request)
        #expect(request.value(forHTTPHeaderField: "Range") == nil, "nothing to continue yet")
        #expect(first.rangeRequested == false)
        #expect(first.receive(head: ResponseHead(status: 200, headers: ["Content-Length": "1000", "ETag": "\"v1\""])))
        #expect(first.receive(whole.prefix(400)))
        #expect(failureCode(first.fail(URLError(.networkConnectionLost))) == .transportFailed)
        let partial = FileWriter.partialFileURL(for: destination)
        #expect((try? Data(contentsOf: partial)) == whole.prefix(400), "the partial file is kept")

        // Second attempt: the adapted request asks for the rest, and the 206 completes the file.
        let second = ResponseDriver(handler: FileWriter(destination: destination, resumable: true))
        var again = URLRequest(url: url)
        try second.adapt(&again)
        #expect(again.value(forHTTPHeaderField: "Range") == "bytes=400-")
        #expect(again.value(forHTTPHeaderField: "If-Range") == "\"v1\"")
        #expect(second.rangeRequested == true)
        let rest = ResponseHead(status: 206, headers: [
            "Content-Length": "600", "Content-Range": "bytes 400-999/1000", "ETag": "\"v1\"",
        ])
        #expect(second.receive(head: rest))
        #expect(second.receive(whole.suffix(600)))
        #expect(try second.finish().get() == destination.standardizedFileURL)
        #expect(try Data(contentsOf: destination) == whole)
        #expect(second.handler.resumedFrom == 400)
        #expect(!FileManager.default.fileExists(atPath: partial.path))
    }

    @Test func aHandlerOfYourOwnCanAdaptTheRequest() throws {
        final class Tagging: SelectiveDiscarder<Void>, RequestAdapting {
            init() { super.init(accepting: .successful) }
            func adapt(_ request: inout URLRequest) throws {
                request.setValue("yes", forHTTPHeaderField: "X-Adapted")
            }
        }
        let driver = ResponseDriver(handler: Tagging())
        var request = URLRequest(url: URL(string: "http://127.0.0.1/")!)
        try driver.adapt(&request)
        #expect(request.value(forHTTPHeaderField: "X-Adapted") == "yes")
    }
}

private func failureCode<Content>(_ result: Result<Content, HotPotatoError>) -> HotPotatoError.Code? {
    if case .failure(let error) = result { return error.code }
    return nil
}
