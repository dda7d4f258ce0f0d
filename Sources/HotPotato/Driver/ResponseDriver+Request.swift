import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ResponseDriver {
    /// Prepares the request the response will answer, before it is sent: lets a
    /// ``RequestAdapting`` handler adapt it (a resumable ``FileWriter`` asks for the rest of its
    /// partial file), then records whether it asks for a range (``rangeRequested``).
    ///
    /// ``Session`` calls it for every request; a transport of your own calls it once, before
    /// sending, so that handlers behave as they do under a session.
    ///
    /// - Throws: The handler's error (a ``HotPotatoError``, or any other wrapped with code
    ///   ``HotPotatoError/Code/handlerFailed``); the request must not be sent then.
    public func adapt(_ request: inout URLRequest) throws(HotPotatoError) {
        if let writer = handler as? FileWriter {
            // A class cast, which walks the superclass chain: asking for the protocol costs a scan
            // of every conformance record loaded, the first time for each handler type.
            try writer.adapt(&request)
        } else if let adapting = handler as? any RequestAdapting {
            do {
                try adapting.adapt(&request)
            } catch let error as HotPotatoError {
                throw error
            } catch {
                throw HotPotatoError(
                    .handlerFailed, reason: "The content handler failed to adapt the request: \(error)",
                    underlying: error)
            }
        }
        rangeRequested = request.value(forHTTPHeaderField: "Range") != nil
    }
}
