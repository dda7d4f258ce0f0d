import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The proxy picked for one request, split as libcurl takes it: the address without the
/// credentials, and the credentials percent-decoded, so that they can be handed over (and kept
/// out of logs) apart from it.
struct SelectedProxy: Sendable, Equatable {
    /// `scheme://host[:port]`: no credentials, no path.
    var address: String
    /// The user name, percent-decoded, or `nil` when the proxy URL has none.
    var user: String?
    /// The password, percent-decoded, or `nil` when the proxy URL has none.
    var password: String?

    /// The address with the credentials written as `<redacted>` (or as they are, when
    /// `revealingSecrets`), for a command line or a message.
    func text(revealingSecrets: Bool) -> String {
        guard user != nil || password != nil, let separator = address.range(of: "://") else { return address }
        let userInfo: String
        if revealingSecrets {
            let allowed = CharacterSet.urlUserAllowed.subtracting(CharacterSet(charactersIn: ":@"))
            func encoded(_ text: String?) -> String { text?.addingPercentEncoding(withAllowedCharacters: allowed) ?? "" }
            userInfo = encoded(user) + (password.map { ":" + encoded($0) } ?? "")
        } else {
            userInfo = Redaction.placeholder
        }
        return address[..<separator.upperBound] + userInfo + "@" + address[separator.upperBound...]
    }
}

extension ProxyConfiguration {
    /// The proxy for a request to `url`, checked: `nil` for a direct connection; throws
    /// ``HotPotatoError/Code/invalidRequest`` for a proxy that cannot be used (a scheme other than
    /// `http` or `https`, no host), or when the environment named one that is not a URL.
    func selectedProxy(for url: URL) throws(HotPotatoError) -> SelectedProxy? {
        // Direct connections, the default: nothing to look at in the URL (this runs for every
        // request and redirect).
        if isDirect { return nil }
        guard let proxy = proxy(for: url) else {
            if let scheme = url.scheme?.lowercased(), let setting = unusableSettings[scheme], !bypasses(url) {
                throw HotPotatoError(.invalidRequest, reason: "The proxy in the environment is not a URL: \(setting).")
            }
            return nil
        }
        guard let components = URLComponents(url: proxy, resolvingAgainstBaseURL: false),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = components.percentEncodedHost, !host.isEmpty else {
            throw HotPotatoError(
                .invalidRequest,
                reason: "The proxy \(Redaction.redactingCredentials(inURL: proxy.absoluteString)) is not an http:// or https:// URL with a host.")
        }
        let port = components.port.map { ":\($0)" } ?? ""
        // An IPv6 address keeps (or gets) its brackets, lest its colons read as a port.
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return SelectedProxy(
            address: "\(scheme)://\(bracketed)\(port)",
            user: components.percentEncodedUser.map { $0.removingPercentEncoding ?? $0 },
            password: components.percentEncodedPassword.map { $0.removingPercentEncoding ?? $0 })
    }

    /// Whether `url`'s host matches an entry of ``noProxy`` (see there for the rule).
    func bypasses(_ url: URL) -> Bool {
        guard !noProxy.isEmpty, var host = url.host?.lowercased() else { return false }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix(".") { host.removeLast() }
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        let address = IPAddressBytes(host)
        return noProxy.contains { NoProxyEntry($0)?.matches(host: host, address: address, port: port) == true }
    }
}

/// One entry of a no-proxy list, parsed.
struct NoProxyEntry {
    enum Pattern {
        /// `*`
        case everything
        /// A host name, lower-case, without leading or trailing dot.
        case name(String)
        /// An address and how many of its leading bits must match.
        case address(IPAddressBytes, bits: Int)
    }

    var pattern: Pattern
    var port: Int?

    init?(_ text: String) {
        var rest = Substring(text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased())
        if rest.isEmpty { return nil }
        if rest == "*" {
            pattern = .everything
            return
        }
        // `[v6]:port`, `host:port`, or a bare IPv6 address (several colons: no port).
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") {
                guard let number = Int(after.dropFirst()) else { return nil }
                port = number
            }
            rest = rest[rest.index(after: rest.startIndex)..<close]
        } else if rest.filter({ $0 == ":" }).count == 1, let colon = rest.firstIndex(of: ":") {
            guard let number = Int(rest[rest.index(after: colon)...]) else { return nil }
            port = number
            rest = rest[..<colon]
        }
        var bits: Int?
        if let slash = rest.firstIndex(of: "/") {
            guard let number = Int(rest[rest.index(after: slash)...]), number >= 0 else { return nil }
            bits = number
            rest = rest[..<slash]
        }
        if let address = IPAddressBytes(String(rest)) {
            let width = address.bytes.count * 8
            pattern = .address(address, bits: min(bits ?? width, width))
            return
        }
        guard bits == nil else { return nil }
        while rest.hasPrefix(".") { rest = rest.dropFirst() }
        while rest.hasSuffix(".") { rest = rest.dropLast() }
        if rest.isEmpty { return nil }
        pattern = .name(String(rest))
    }

    func matches(host: String, address: IPAddressBytes?, port: Int) -> Bool {
        if let wanted = self.port, wanted != port { return false }
        switch pattern {
        case .everything:
            return true
        case .name(let name):
            return address == nil && (host == name || host.hasSuffix("." + name))
        case .address(let network, let bits):
            guard let address, address.bytes.count == network.bytes.count else { return false }
            return address.sharesPrefix(with: network, bits: bits)
        }
    }
}

/// An IPv4 or IPv6 address in network order, parsed with `inet_pton`.
struct IPAddressBytes: Equatable {
    var bytes: [UInt8]

    init?(_ text: String) {
        var buffer = [UInt8](repeating: 0, count: 16)
        if text.contains(":") {
            guard inet_pton(AF_INET6, text, &buffer) == 1 else { return nil }
            bytes = buffer
        } else {
            guard inet_pton(AF_INET, text, &buffer) == 1 else { return nil }
            bytes = Array(buffer.prefix(4))
        }
    }

    /// Whether the first `bits` bits of both addresses are the same.
    func sharesPrefix(with other: IPAddressBytes, bits: Int) -> Bool {
        var remaining = bits
        for (mine, theirs) in zip(bytes, other.bytes) where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            if mine & mask != theirs & mask { return false }
            remaining -= 8
        }
        return true
    }
}
