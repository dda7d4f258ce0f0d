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
/// ``HotPotatoError/Code/engineUnavailable``).
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

    /// The entry of `CURLOPT_CONNECT_TO`: `HOST:PORT:ADDRESS:PORT`, an IPv6 address in brackets.
    var curlConnectTo: String {
        let target = address.contains(":") && !address.hasPrefix("[") ? "[\(address)]" : address
        return "\(host):\(port):\(target):\(connectPort.map(String.init) ?? "")"
    }
}
