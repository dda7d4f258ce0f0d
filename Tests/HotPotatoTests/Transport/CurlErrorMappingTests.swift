import CCurl
import Foundation
import Testing
@testable import HotPotato

/// libcurl's result codes map to HotPotato's error codes as URLSession's errors do.
@Suite struct CurlErrorMappingTests {
    func code(_ result: Int32) -> HotPotatoError.Code? {
        guard case .failure(let error) = CurlErrorMapping.map(code: result, message: "m") else { return nil }
        return error.code
    }

    /// A reset HTTP/2 stream, and an HTTP/2 session that ended under the request (a GOAWAY that
    /// did not cover it), are, for the request, what a lost connection is for HTTP/1.1: the same
    /// code, so retries and truncation reports treat them alike.
    @Test func aResetHTTP2StreamIsALostConnection() {
        #expect(code(Int32(HP_CURLE_HTTP2_STREAM)) == .connectionLost)
        #expect(code(Int32(HP_CURLE_RECV_ERROR)) == .connectionLost)
        #expect(code(Int32(HP_CURLE_HTTP2)) == .connectionLost)
    }

    @Test func aShortBodyIsLeftToTheDriver() {
        guard case .endedEarly = CurlErrorMapping.map(code: Int32(HP_CURLE_PARTIAL_FILE), message: "m") else {
            Issue.record("CURLE_PARTIAL_FILE is a body that ended early")
            return
        }
    }
}
