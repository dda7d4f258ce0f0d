import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

@Suite struct SelectiveDiscarderTests {
    @Test(arguments: Chunking.allCases)
    func discardsAnAcceptedBody(chunking: Chunking) throws {
        let handler = SelectiveDiscarder()
        try drive(handler, head: head(200), body: patternedData(count: 40_000), chunking: chunking)
    }

    @Test(arguments: [200, 201, 203, 204, 206, 299])
    func acceptsEvery2xxByDefault(status: Int) throws {
        try drive(SelectiveDiscarder(), head: head(status), body: Data())
    }

    @Test(arguments: [100, 199, 300, 304, 400, 404, 500, 503])
    func rejectsOtherStatusesByDefault(status: Int) throws {
        let error = try #require(expectFailure { try drive(SelectiveDiscarder(), head: head(status), body: Data("why".utf8)) })
        #expect(error.code == .unacceptableStatus)
        #expect(error.head?.status == status)
        #expect(error.reason.contains("200–299"))
    }

    @Test func customStatusCodes() throws {
        let handler = SelectiveDiscarder(gate: ResponseGate(statusCodes: [200, 304]))
        try drive(handler, head: head(304), body: Data())
        #expect(expectFailure { try drive(SelectiveDiscarder(gate: ResponseGate(statusCodes: [200, 304])), head: head(201), body: Data()) }?.code == .unacceptableStatus)
    }

    @Test func emptyStatusSetAcceptsEverything() throws {
        for status in [100, 200, 302, 404, 500, 599] {
            try drive(SelectiveDiscarder(gate: ResponseGate(statusCodes: [])), head: head(status), body: Data("x".utf8))
        }
    }

    @Test(arguments: [
        ("application/json", "application/json"),
        ("application/json", "Application/JSON; charset=utf-8"),
        ("application/*+json", "application/problem+json"),
        ("text/*", "text/csv"),
        ("*/*", "image/png"),
    ])
    func acceptsMatchingContentTypes(pattern: String, actual: String) throws {
        let handler = SelectiveDiscarder(gate: ResponseGate(contentTypes: [MediaType(stringLiteral: pattern)]))
        try drive(handler, head: head(contentType: actual), body: Data("x".utf8))
    }

    @Test func rejectsOtherContentTypesKeepingTheBody() throws {
        let handler = SelectiveDiscarder(gate: ResponseGate(contentTypes: ["application/json"]))
        let error = try #require(expectFailure {
            try drive(handler, head: head(200, contentType: "text/html"), body: Data("<h1>Maintenance</h1>".utf8))
        })
        #expect(error.code == .unacceptableContentType)
        #expect(error.errorBody?.text == "<h1>Maintenance</h1>")
        #expect(error.reason.contains("text/html"))
    }

    @Test func missingContentTypeIsRejectedWhenTypesAreRestricted() throws {
        let error = try #require(expectFailure {
            try drive(SelectiveDiscarder(gate: ResponseGate(contentTypes: ["application/json"])), head: head(200), body: Data("{}".utf8))
        })
        #expect(error.code == .missingContentType)
        #expect(error.errorBody?.text == "{}")
    }

    @Test func malformedContentTypeIsRejectedWhenTypesAreRestricted() throws {
        let error = try #require(expectFailure {
            try drive(SelectiveDiscarder(gate: ResponseGate(contentTypes: ["application/json"])),
                      head: head(200, contentType: "application json"), body: Data("{}".utf8))
        })
        #expect(error.code == .malformedContentType)
    }

    @Test func anyContentTypeOrNoneIsFineWhenUnrestricted() throws {
        try drive(SelectiveDiscarder(), head: head(200), body: Data("x".utf8))
        try drive(SelectiveDiscarder(), head: head(200, contentType: "garbage"), body: Data("x".utf8))
    }

    @Test(arguments: [
        head(204), head(205), head(200, method: "HEAD"), head(200, contentLength: 0),
    ])
    func bodylessResponsesSkipContentTypeGating(response: ResponseHead) throws {
        let handler = SelectiveDiscarder(gate: ResponseGate(statusCodes: [], contentTypes: ["application/json"]))
        try drive(handler, head: response, body: Data())
    }

    @Test func statusIsCheckedBeforeContentType() throws {
        let error = expectFailure {
            try drive(SelectiveDiscarder(gate: ResponseGate(contentTypes: ["application/json"])), head: head(500, contentType: "text/html"), body: Data())
        }
        #expect(error?.code == .unacceptableStatus)
    }
}
