import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A handler that adds to the request it is made for, before the request is sent.
///
/// A resumable ``FileWriter`` is one: it takes its partial file and asks for the rest of it with
/// `Range` and `If-Range`. ``Session`` calls ``adapt(_:)`` for every request; a transport of your
/// own calls ``ResponseDriver/adapt(_:)``, which adapts the request and tells the driver whether
/// it asks for a range:
///
/// ```swift
/// let driver = ResponseDriver(handler: FileWriter(destination: file, resumable: true))
/// var request = URLRequest(url: url)
/// try driver.adapt(&request)
/// // send `request`, then feed the driver the response
/// ```
public protocol RequestAdapting: ContentHandler {
    /// Called once, before the request is sent, with the request as it will be sent. Throwing
    /// fails the call before anything is sent.
    func adapt(_ request: inout URLRequest) throws
}
