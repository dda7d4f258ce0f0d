import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Redirects: each one URLSession offers is declined and, when the policy follows it, sent as a
// new task of the same session; a 3xx it completes without reporting is delivered as it is.
extension URLSessionTransfer {
    /// Hands over the head of a response URLSession completed without reporting it.
    ///
    /// FoundationNetworking reports neither the head nor the body of a `301`–`303` or `305`–`308`
    /// it does not offer to follow — one without a `Location` (or with one it cannot parse) — and
    /// completes the task as if it had. Its head is still known (`task.response`): it goes to the
    /// handler as the final response, as on the curl engine, but with an empty body, since that
    /// body was never delivered; so its `Content-Length` is dropped, lest the empty body read as
    /// a truncated one.
    func deliverUnreportedHead() {
        let unreported = state.withLock { state in state.hasHead ? nil : state.task?.response as? HTTPURLResponse }
        guard let response = unreported, (300..<400).contains(response.statusCode) else { return }
        var head = state.withLock { state in Self.head(of: response, method: state.request.httpMethod ?? "GET") }
        head.headers.remove(name: "Content-Length")
        state.withLock { $0.hasHead = true }
        if !sink.receive(head: head) { stop() }
    }

    /// Answers URLSession's offer to follow a redirect: always declines it, then follows the
    /// redirect itself when ``RedirectPolicy`` does.
    ///
    /// - A redirect the policy follows goes out as a new task of the same session, made by
    ///   `nextTask`, which files it under this transfer in place of the declined one; the declined
    ///   task then delivers the redirect's head and body to nobody and completes on its own.
    /// - Any other `3xx` (`305`, `306`, or any redirect with a limit of 0) is delivered: declined,
    ///   URLSession hands the response and its body over as the final one.
    /// - Past the limit, or for a `Location` that is not `http` or `https`, the call fails
    ///   (``HotPotatoError/Code/tooManyRedirects``, ``HotPotatoError/Code/invalidRequest``); so it
    ///   does (``HotPotatoError/Code/invalidRequest``) when URLSession would reach the new URL
    ///   another way than the configured proxy says (see ``URLSessionProxyRule``).
    ///
    /// FoundationNetworking asks only for `301`–`303` and `305`–`308` with a `Location` it can
    /// parse; a `300` never reaches here and is delivered as it is.
    ///
    /// On Linux, answering after the task was cancelled is a fatal error in FoundationNetworking,
    /// and so is a cancel processed before an answer already given. So the answer is given under
    /// the same lock ``stop()`` takes, and only if the task has not been stopped; a cancel issued
    /// afterwards reaches URLSession's work queue after the answer. The next task is made and
    /// resumed under that lock too, so that `stop()` always cancels the task that is running.
    func handleRedirect(_ response: HTTPURLResponse, completionHandler: (URLRequest?) -> Void) {
        noteActivity()
        let failure = state.withLock { state -> HotPotatoError? in
            guard !state.stopped, let declined = state.task else { return nil }
            completionHandler(nil)
            let head = Self.head(of: response, method: state.request.httpMethod ?? "GET")
            let next: (request: URLRequest, keepsBody: Bool)?
            do throws(HotPotatoError) {
                next = try redirectPolicy.nextRequest(
                    after: state.request, response: head, redirectsFollowed: state.redirects,
                    replayableBody: state.body?.isReplayable ?? true)
            } catch {
                return error
            }
            guard let next else { return nil }
            do throws(HotPotatoError) {
                try proxyRule.check(next.request.url)
                _ = try proxyRule.routingProxyHeaders(next.request)
            } catch {
                var failure = error
                failure.head = head
                return failure
            }
            let body = next.keepsBody ? state.body : nil
            let request = prepare(next.request, body: body, in: &state)
            guard let task = nextTask(self, declined.taskIdentifier, request, body) else {
                return HotPotatoError(
                    .invalidRequest, reason: "The session was invalidated before the redirect could be followed.", head: head)
            }
            state.task = task
            state.request = next.request
            state.body = body
            state.redirects += 1
            task.resume()
            return nil
        }
        guard let failure else { return }
        sink.fail(failure)
        stop()
    }
}
