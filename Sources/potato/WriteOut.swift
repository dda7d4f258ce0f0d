import Foundation
import HotPotato

/// `-w`/`--write-out FORMAT`: what curl's `--write-out` prints once the transfer is over, for the
/// subset of its variables listed in ``variables``, on standard output. `\n`, `\r`, `\t` and `\\`
/// are escapes, `%%` is a `%`; an unknown variable is a usage error (curl would print it empty).
struct WriteOut {
    /// The variables potato knows, as curl names them; `tls_version` and `tls_cipher` are
    /// potato's own (curl prints them with `-v` only).
    static let variables = [
        "http_code", "response_code", "http_version", "url_effective", "num_connects", "remote_ip", "remote_port",
        "local_ip", "local_port", "size_download", "speed_download", "time_namelookup", "time_connect",
        "time_appconnect", "time_starttransfer", "time_total", "tls_version", "tls_cipher",
    ]

    private enum Piece {
        case text(String)
        case variable(String)
    }

    private let pieces: [Piece]

    init(parsing format: String) throws(UsageError) {
        var pieces: [Piece] = []
        var text = ""
        var rest = format[...]
        while let character = rest.first {
            rest = rest.dropFirst()
            switch character {
            case "\\":
                guard let next = rest.first else { text.append("\\"); continue }
                rest = rest.dropFirst()
                switch next {
                case "n": text.append("\n")
                case "r": text.append("\r")
                case "t": text.append("\t")
                case "\\": text.append("\\")
                default: text += "\\\(next)"
                }
            case "%":
                if rest.first == "%" {
                    rest = rest.dropFirst()
                    text.append("%")
                } else if rest.first == "{", let close = rest.firstIndex(of: "}") {
                    let name = String(rest[rest.index(after: rest.startIndex)..<close])
                    guard Self.variables.contains(name) else {
                        throw UsageError("-w: potato does not know %{\(name)}; it knows " + Self.variables.map { "%{\($0)}" }.joined(separator: " "))
                    }
                    if !text.isEmpty { pieces.append(.text(text)) }
                    text = ""
                    pieces.append(.variable(name))
                    rest = rest[rest.index(after: close)...]
                } else {
                    text.append("%")
                }
            default:
                text.append(character)
            }
        }
        if !text.isEmpty { pieces.append(.text(text)) }
        self.pieces = pieces
    }

    /// The text for a call that ended: its head (if one arrived), its timings (for a response),
    /// and the URL asked for.
    func render(head: ResponseHead?, timings: TransferTimings?, requested: String) -> String {
        pieces.map { piece in
            switch piece {
            case .text(let text): return text
            case .variable(let name): return value(name, head: head, timings: timings, requested: requested)
            }
        }.joined()
    }

    private func value(_ name: String, head: ResponseHead?, timings: TransferTimings?, requested: String) -> String {
        let phases = timings?.phases
        let connection = timings?.connection
        func seconds(_ value: TimeInterval?) -> String { String(format: "%.6f", value ?? 0) }
        switch name {
        case "http_code", "response_code": return String(format: "%03d", head?.status ?? 0)
        case "http_version":
            guard let version = head?.httpVersion else { return "0" }
            return version.description.dropFirst("HTTP/".count).description
        case "url_effective": return Redaction.redactingCredentials(inURL: head?.url?.absoluteString ?? requested)
        case "num_connects": return String(connection?.connectionsMade ?? 0)
        case "remote_ip": return connection?.remoteAddress ?? ""
        case "remote_port": return connection?.remotePort.map(String.init) ?? ""
        case "local_ip": return connection?.localAddress ?? ""
        case "local_port": return connection?.localPort.map(String.init) ?? ""
        case "size_download": return String(connection?.bodyBytesReceived ?? 0)
        case "tls_version": return connection?.tlsVersion ?? ""
        case "tls_cipher": return connection?.tlsCipherSuite ?? ""
        case "speed_download":
            guard let bytes = connection?.bodyBytesReceived, let total = phases?.total ?? timings?.total, total > 0 else { return "0" }
            return String(Int64((Double(bytes) / total).rounded()))
        case "time_namelookup": return seconds(phases?.nameLookup)
        case "time_connect": return seconds(phases?.connect)
        case "time_appconnect": return seconds(phases?.tlsHandshake)
        case "time_starttransfer": return seconds(phases?.firstByte ?? timings?.head)
        case "time_total": return seconds(phases?.total ?? timings?.total)
        default: return ""
        }
    }
}
