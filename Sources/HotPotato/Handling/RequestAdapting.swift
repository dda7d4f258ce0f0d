import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A handler that adds to the request it is made for before it is sent: a resumable
/// ``FileWriter`` asks for the rest of its partial file with `Range` and `If-Range`.
protocol RequestAdapting: AnyObject {
    /// Called once, before the request is sent, with the request as the engine will send it.
    /// Throwing fails the call with that error before anything is sent.
    func adapt(_ request: inout URLRequest) throws(HotPotatoError)
}
