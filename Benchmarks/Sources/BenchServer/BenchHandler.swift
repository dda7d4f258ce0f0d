import NIOCore
import NIOHTTP1

/// Serves one connection (HTTP/1.1, kept alive):
///
/// - `/events?interval=S`: `text/event-stream`, one event `data: {"n":K}` (about 30 bytes) at
///   once and then every S seconds (default 1, fractions allowed), until the client goes;
/// - `/delay?ms=M`: a small JSON body after M milliseconds (default 200);
/// - `/small`: a small JSON body at once;
/// - `/stats`: the server's counts as JSON (`?reset=1` starts the peaks again).
final class BenchHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let stats: ServerStats
    private var head: HTTPRequestHead?
    /// The event stream's next tick, while one is open on this connection.
    private var ticker: Scheduled<Void>?
    private var streaming = false
    private var delayed: Scheduled<Void>?

    init(stats: ServerStats) {
        self.stats = stats
    }

    func channelActive(context: ChannelHandlerContext) {
        stats.connectionOpened()
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stats.connectionClosed()
        ticker?.cancel()
        delayed?.cancel()
        if streaming {
            streaming = false
            stats.streamClosed()
        }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body:
            break
        case .end:
            guard let head else { return }
            self.head = nil
            stats.request()
            respond(to: head, context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let target = RequestTarget(head.uri)
        switch target.path {
        case "/events":
            startEvents(every: max(0.001, target.double("interval") ?? 1), head: head, context: context)
        case "/delay":
            let milliseconds = max(0, target.int("ms") ?? 200)
            delayed = context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(Int64(milliseconds))) { [self] in
                delayed = nil
                sendWhole(Self.smallBody, contentType: "application/json", head: head, context: context)
            }
        case "/small":
            sendWhole(Self.smallBody, contentType: "application/json", head: head, context: context)
        case "/stats":
            sendWhole(stats.json(reset: target.int("reset") == 1), contentType: "application/json", head: head, context: context)
        default:
            sendWhole("not found\n", contentType: "text/plain", status: .notFound, head: head, context: context)
        }
    }

    /// A small JSON document, the same for `/small` and `/delay`.
    static let smallBody = #"{"ok":true,"items":[1,2,3],"message":"a small answer from bench-server"}"#

    private func sendWhole(
        _ text: String, contentType: String, status: HTTPResponseStatus = .ok, head: HTTPRequestHead,
        context: ChannelHandlerContext
    ) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: contentType)
        headers.add(name: "Content-Length", value: String(text.utf8.count))
        let keepAlive = head.isKeepAlive
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: text)))), promise: nil)
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }

    private func startEvents(every seconds: Double, head: HTTPRequestHead, context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/event-stream")
        headers.add(name: "Cache-Control", value: "no-cache")
        // No Content-Length: NIO's encoder sends the body chunked, as HTTP/1.1 streams are.
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .ok, headers: headers))), promise: nil)
        streaming = true
        stats.streamOpened()
        sendEvent(0, every: .nanoseconds(Int64(seconds * 1e9)), context: context)
    }

    private func sendEvent(_ number: Int, every interval: TimeAmount, context: ChannelHandlerContext) {
        guard streaming, context.channel.isActive else { return }
        let event = "data: {\"n\":\(number)}\n\n"
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: event)))), promise: nil)
        stats.eventSent()
        ticker = context.eventLoop.assumeIsolated().scheduleTask(in: interval) { [self] in
            sendEvent(number + 1, every: interval, context: context)
        }
    }
}

@available(*, unavailable)
extension BenchHandler: Sendable {}
