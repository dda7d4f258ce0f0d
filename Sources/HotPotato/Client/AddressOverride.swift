import Foundation

/// Connects requests for one host and port to another address, as curl's `--resolve` (and
/// async-http-client's `dnsOverride`): the way to try a new server before DNS points at it, or to
/// reach a name without a resolver. Set ``Session/Configuration/addressOverrides``.
///
/// ```swift
/// var configuration = Session.Configuration()
/// configuration.addressOverrides = [AddressOverride(host: "api.example.com", port: 443, address: "10.0.0.7")]
/// ```
///
/// Only the connection goes elsewhere: the request still names the host (`Host` header, TLS
/// server name), and the server's certificate is still checked against the host's name, never
/// the address. A redirect to another host or port is not overridden unless it has an override
/// of its own. The libcurl engine implements it per request (`CURLOPT_CONNECT_TO`), so no other
/// session sees it; the URLSession engine cannot (its requests fail with
/// ``HotPotatoError/Code/engineUnavailable``). An IPv6 host or address is written without
/// brackets (`::1`) or with them. An override libcurl could misread — an empty host or address, a
/// colon outside an IPv6 address, a comma, white space or a control character, a port outside
/// 1…65535 — fails its session's requests with ``HotPotatoError/Code/invalidRequest`` before any
/// connection, rather than connect somewhere it was not told.
public struct AddressOverride: Sendable, Hashable, CustomStringConvertible {
    /// The host the override applies to (compared without case).
    public var host: String
    /// The port it applies to (the URL's, or its scheme's default: 80, 443).
    public var port: Int
    /// The address (or host name) to connect to instead: `127.0.0.1`, `::1`, `backend.local`.
    public var address: String
    /// The port to connect to, when it is not ``port``.
    public var connectPort: Int?

    /// Requests for `host`:`port` connect to `address` (and `connectPort`, if given).
    public init(host: String, port: Int, address: String, connectPort: Int? = nil) {
        self.host = host
        self.port = port
        self.address = address
        self.connectPort = connectPort
    }

    /// curl's `--resolve` form: `HOST:PORT:ADDRESS` (an IPv6 address in brackets or not), or
    /// `nil` when `text` is not one.
    public init?(parsing text: String) {
        let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, let port = Int(parts[1]), (1...65_535).contains(port) else { return nil }
        var address = String(parts[2])
        if address.hasPrefix("["), address.hasSuffix("]") { address = String(address.dropFirst().dropLast()) }
        guard !address.isEmpty, !address.contains(where: { $0 == " " || $0 == "," }) else { return nil }
        self.init(host: String(parts[0]), port: port, address: address)
    }

    /// `HOST:PORT → ADDRESS[:PORT]`.
    public var description: String {
        "\(host):\(port) → \(address)\(connectPort.map { ":\($0)" } ?? "")"
    }

    /// The entry of `CURLOPT_CONNECT_TO`: `HOST:PORT:ADDRESS:PORT`, an IPv6 address (the host's
    /// or the address) in brackets, as libcurl matches a URL's IPv6 host.
    var curlConnectTo: String {
        "\(Self.bracketed(host)):\(port):\(Self.bracketed(address)):\(connectPort.map(String.init) ?? "")"
    }

    /// Why libcurl could not be given this override, or `nil` when it can: an empty host or
    /// address, a port outside 1…65535, or a character that would change what the entry says —
    /// a colon outside an IPv6 address, a comma, white space, a control character. The libcurl
    /// engine fails a request of a session with such an override
    /// (``HotPotatoError/Code/invalidRequest``) rather than connect somewhere it was not told.
    var problem: String? {
        for (name, value) in [("host", host), ("address", address)] {
            let bare = value.hasPrefix("[") && value.hasSuffix("]") ? String(value.dropFirst().dropLast()) : value
            if bare.isEmpty { return "its \(name) is empty" }
            if bare.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F || $0 == "," || $0 == "[" || $0 == "]" }) {
                return "its \(name) \(String(reflecting: value)) has a character no host or address has"
            }
            if bare.contains(":"), !Self.isIPv6(bare) {
                return "its \(name) \(String(reflecting: value)) has a colon but is no IPv6 address"
            }
        }
        if !(1...65_535).contains(port) { return "its port \(port) is not 1…65535" }
        if let connectPort, !(1...65_535).contains(connectPort) { return "its connect port \(connectPort) is not 1…65535" }
        return nil
    }

    /// `value` in brackets when it is an IPv6 address without them.
    static func bracketed(_ value: String) -> String {
        value.contains(":") && !value.hasPrefix("[") ? "[\(value)]" : value
    }

    /// Whether `text` is an IPv6 address (`inet_pton`'s reading, a zone such as `%eth0` aside).
    private static func isIPv6(_ text: String) -> Bool {
        let address = text.split(separator: "%", maxSplits: 1).first.map(String.init) ?? text
        var storage = in6_addr()
        return inet_pton(AF_INET6, address, &storage) == 1
    }
}
