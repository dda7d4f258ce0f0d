import Foundation

/// Where the time of a request went, as curl's `-w` reports it: each value is the seconds from
/// the start of the request that produced the response (after redirects, the last one) to the
/// end of that phase, so they grow in order (`nameLookup ≤ connect ≤ tlsHandshake ≤ firstByte ≤
/// total`). In ``TransferTimings/phases``.
///
/// The libcurl engine fills every field it measured (`CURLINFO_*_TIME_T`); on a reused
/// connection the lookup, connect and handshake phases end at once (near 0). The URLSession
/// engine fills none: FoundationNetworking never reports task metrics (checked on Linux), and the
/// engine does not collect them on Apple platforms yet; ``TransferTimings/phases`` is `nil` there.
public struct TransferPhases: Sendable, Hashable {
    /// The host name resolved (curl's `time_namelookup`).
    public var nameLookup: TimeInterval?
    /// The TCP connection made, to the server or the proxy (`time_connect`).
    public var connect: TimeInterval?
    /// The TLS handshake done (`time_appconnect`); `nil` for plain `http` and for a connection
    /// that was already open (no handshake was made).
    public var tlsHandshake: TimeInterval?
    /// The first byte of the response received (`time_starttransfer`).
    public var firstByte: TimeInterval?
    /// The request complete (`time_total`).
    public var total: TimeInterval?

    /// Creates phases.
    public init(nameLookup: TimeInterval? = nil, connect: TimeInterval? = nil, tlsHandshake: TimeInterval? = nil,
                firstByte: TimeInterval? = nil, total: TimeInterval? = nil) {
        self.nameLookup = nameLookup
        self.connect = connect
        self.tlsHandshake = tlsHandshake
        self.firstByte = firstByte
        self.total = total
    }
}
