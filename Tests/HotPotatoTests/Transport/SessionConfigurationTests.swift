import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import HotPotato

/// `urlSessionConfiguration` is made on first use, and behaves as the stored object it was: a
/// change made through the property stays, and copies of a configuration share the object until
/// one of them is given another.
@Suite struct SessionConfigurationTests {
    @Test func urlSessionConfigurationKeepsChangesMadeThroughIt() {
        let configuration = Session.Configuration()
        configuration.urlSessionConfiguration.timeoutIntervalForRequest = 7
        configuration.urlSessionConfiguration.httpAdditionalHeaders = ["X-Test": "1"]
        #expect(configuration.urlSessionConfiguration.timeoutIntervalForRequest == 7)
        #expect(configuration.urlSessionConfiguration.httpAdditionalHeaders?["X-Test"] as? String == "1")
        #expect(configuration.urlSessionConfiguration === configuration.urlSessionConfiguration)
    }

    @Test func copiesShareTheObjectUntilOneIsGivenAnother() {
        let original = Session.Configuration()
        var copy = original
        #expect(copy.urlSessionConfiguration === original.urlSessionConfiguration)
        copy.urlSessionConfiguration.timeoutIntervalForResource = 9
        #expect(original.urlSessionConfiguration.timeoutIntervalForResource == 9)
        let replacement = URLSessionConfiguration.default
        copy.urlSessionConfiguration = replacement
        #expect(copy.urlSessionConfiguration === replacement)
        #expect(original.urlSessionConfiguration !== replacement)
    }
}
