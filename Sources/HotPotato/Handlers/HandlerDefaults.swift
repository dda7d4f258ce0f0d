/// The defaults HotPotato's handlers and request API share.
@usableFromInline
enum HandlerDefaults {
    /// The largest body a handler that holds the body in memory accepts by default: 64 MiB.
    @usableFromInline
    static let maximumBodySize: Int64 = 64 * 1024 * 1024
}
