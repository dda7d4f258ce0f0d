import Foundation
import HotPotato

/// `get`'s transport controls, curl's names: `--cert`, `--key`, `--cert-type`, `--pinnedpubkey`,
/// `--unix-socket`, `--resolve`, `--connect-to`, `--interface`, `--connect-timeout`. The libcurl engine's alone: with
/// `--engine urlsession` each is a usage error.
struct TransportOptions {
    /// `--cert FILE[:PASSWORD]`: the client certificate (a `:` in the file's name written `\:`).
    var certificate: String?
    var certificatePassword: String?
    /// `--key FILE`: the client certificate's key, when it is not in the certificate's file.
    var key: String?
    /// `--cert-type PEM|P12`: how `--cert`'s file is encoded (PEM by default).
    var certificateFormat: ClientCertificate.Format = .pem
    /// `--pinnedpubkey sha256//BASE64[;sha256//BASE64…]`: pins for every host.
    var pins: [String] = []
    /// `--unix-socket PATH`.
    var unixSocket: String?
    /// `--resolve HOST:PORT:ADDRESS` and `--connect-to HOST:PORT:HOST2:PORT2`, repeatable.
    var overrides: [AddressOverride] = []
    /// Whether `--connect-to` was given (for the usage error of `--engine urlsession`).
    var connectsElsewhere = false
    /// `--interface NAME|ADDRESS`.
    var localAddress: String?
    /// `--connect-timeout SECONDS`.
    var connectTimeout: TimeInterval?
    /// `--tlsv1.2` (and `--tlsv1`, `--tlsv1.0`, `--tlsv1.1`, `--tlsv1.3`): the oldest TLS allowed.
    var minimumTLSVersion: TLSVersion?
    /// Which of those was given, for the usage error of `--engine urlsession`.
    private var tlsOption = ""

    /// The options given, by name, for the usage error of `--engine urlsession`.
    var given: [String] {
        var names: [String] = []
        if certificate != nil { names.append("--cert") }
        if key != nil { names.append("--key") }
        if !pins.isEmpty { names.append("--pinnedpubkey") }
        if unixSocket != nil { names.append("--unix-socket") }
        if !overrides.isEmpty { names.append(connectsElsewhere ? "--connect-to" : "--resolve") }
        if localAddress != nil { names.append("--interface") }
        if connectTimeout != nil { names.append("--connect-timeout") }
        #if canImport(FoundationNetworking)
        if minimumTLSVersion != nil { names.append(tlsOption) }
        #endif
        return names
    }

    /// Parses option `name` when it is one of these; `false` when it is not.
    mutating func parse(_ name: String, value: () throws(UsageError) -> String) throws(UsageError) -> Bool {
        switch name {
        case "-E", "--cert":
            let (file, password) = Self.splitPassword(try value())
            guard FileManager.default.isReadableFile(atPath: file) else { throw UsageError("--cert \"\(file)\" is not a readable file") }
            certificate = file
            certificatePassword = password
        case "--key":
            let file = try value()
            guard FileManager.default.isReadableFile(atPath: file) else { throw UsageError("--key \"\(file)\" is not a readable file") }
            key = file
        case "--cert-type":
            switch try value().uppercased() {
            case "PEM": certificateFormat = .pem
            case "P12": certificateFormat = .pkcs12
            default: throw UsageError("--cert-type is PEM or P12")
            }
        case "--pinnedpubkey":
            let text = try value()
            // As curl: a file holding the public key (PEM or DER), or sha256// pins.
            guard text.hasPrefix("sha256//") else {
                do {
                    pins.append(try PublicKeyPins.pin(ofPublicKeyAt: URL(fileURLWithPath: text)))
                } catch {
                    throw UsageError("--pinnedpubkey takes a public key file (PEM or DER) or sha256//BASE64 pins: \(error.reason)")
                }
                return true
            }
            let pins = text.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            do {
                _ = try PublicKeyPins(forEveryHost: pins)
            } catch {
                throw UsageError("--pinnedpubkey takes sha256//BASE64 pins separated by ';': \(error.reason)")
            }
            self.pins += pins
        case "--unix-socket": unixSocket = try value()
        case "--resolve":
            let text = try value()
            guard let override = AddressOverride(parsing: text) else {
                throw UsageError("--resolve \"\(text)\" is not HOST:PORT:ADDRESS")
            }
            overrides.append(override)
        case "--connect-to":
            let text = try value()
            guard let override = Self.connectTo(text) else {
                throw UsageError("--connect-to \"\(text)\" is not HOST:PORT:HOST2:PORT2 (HOST2 or PORT2 may be empty: the same)")
            }
            overrides.append(override)
            connectsElsewhere = true
        case "--interface": localAddress = try value()
        case "--tlsv1", "--tlsv1.0", "--tlsv1.1", "--tlsv1.2", "--tlsv1.3":
            // curl's `--tlsv1`: TLS 1.0 or later.
            minimumTLSVersion = switch name {
            case "--tlsv1.3": .v1_3
            case "--tlsv1.2": .v1_2
            case "--tlsv1.1": .v1_1
            default: .v1_0
            }
            tlsOption = name
        case "--connect-timeout":
            let text = try value()
            guard let seconds = TimeInterval(text), seconds >= 0, seconds.isFinite else {
                throw UsageError("--connect-timeout \"\(text)\" is not a number of seconds")
            }
            // 0 is curl's "no limit" (the --timeout still bounds connecting).
            connectTimeout = seconds > 0 ? seconds : nil
        default:
            return false
        }
        return true
    }

    /// Checks what needs something else, once every option is read.
    func check(engine: Session.Engine) throws(UsageError) {
        if certificate == nil, key != nil { throw UsageError("--key needs --cert") }
        if certificateFormat == .pkcs12, key != nil { throw UsageError("--key goes with PEM: a P12 file holds its key") }
        if engine == .urlSession, let first = given.first {
            throw UsageError("\(first) needs the curl engine: URLSession cannot \(Self.what(first))")
        }
    }

    /// Sets these on `configuration`.
    func apply(to configuration: inout Session.Configuration) {
        if let certificate {
            configuration.clientCertificate = ClientCertificate(
                certificate: URL(fileURLWithPath: certificate), key: key.map { URL(fileURLWithPath: $0) },
                password: certificatePassword, format: certificateFormat)
        }
        if !pins.isEmpty { configuration.publicKeyPins = try? PublicKeyPins(forEveryHost: pins) }
        configuration.unixSocketPath = unixSocket
        configuration.addressOverrides = overrides
        configuration.localAddress = localAddress
        configuration.connectTimeout = connectTimeout
        configuration.minimumTLSVersion = minimumTLSVersion
    }

    /// curl's `--connect-to HOST:PORT:HOST2:PORT2` (an IPv6 host in brackets): requests for
    /// HOST:PORT connect to HOST2:PORT2 instead, an empty HOST2 or PORT2 keeping the request's.
    /// curl's empty HOST or PORT ("any") is not taken: `nil`.
    static func connectTo(_ text: String) -> AddressOverride? {
        var fields: [String] = []
        var rest = text[...]
        while fields.count < 4 {
            var field: Substring
            if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
                field = rest[rest.index(after: rest.startIndex)..<close]
                rest = rest[rest.index(after: close)...]
            } else {
                let end = rest.firstIndex(of: ":") ?? rest.endIndex
                field = rest[..<end]
                rest = rest[end...]
            }
            fields.append(String(field))
            if rest.hasPrefix(":") { rest = rest.dropFirst() } else { break }
        }
        guard fields.count == 4, rest.isEmpty, !fields[0].isEmpty, let port = Int(fields[1]), (1...65_535).contains(port) else {
            return nil
        }
        var connectPort: Int?
        if !fields[3].isEmpty {
            guard let value = Int(fields[3]), (1...65_535).contains(value) else { return nil }
            connectPort = value
        }
        return AddressOverride(host: fields[0], port: port, address: fields[2].isEmpty ? fields[0] : fields[2], connectPort: connectPort)
    }

    /// `FILE[:PASSWORD]`, curl's way: the first `:` not escaped as `\:` starts the password.
    static func splitPassword(_ text: String) -> (file: String, password: String?) {
        var file = ""
        var characters = text[...]
        while let character = characters.first {
            characters = characters.dropFirst()
            if character == "\\", characters.first == ":" {
                file.append(":")
                characters = characters.dropFirst()
            } else if character == ":" {
                return (file, String(characters))
            } else {
                file.append(character)
            }
        }
        return (file, nil)
    }

    private static func what(_ option: String) -> String {
        switch option {
        case "--cert", "--key": "present a client certificate"
        case "--pinnedpubkey": "pin a public key"
        case "--unix-socket": "connect to a Unix socket"
        case "--resolve", "--connect-to": "override an address"
        case "--connect-timeout": "bound the time a connection takes"
        case let name where name.hasPrefix("--tlsv"): "set the oldest TLS version on Linux"
        default: "choose the local address"
        }
    }
}
