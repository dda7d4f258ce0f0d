import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Request {
    /// A `curl` command line that sends this request: its method, URL (with the query items),
    /// headers (the session's defaults included), body and redirect rule, each argument quoted
    /// for a POSIX shell.
    ///
    /// ```swift
    /// print(session.post(url).basicAuthentication(user: "me", password: "secret").body(json: item).cURLDescription())
    /// // curl -H 'Authorization: <redacted>' -H 'Content-Type: application/json' --data-binary '{"id":1}' -L --max-redirs 10 'https://…'
    /// ```
    ///
    /// - The values of credential headers (`Authorization`, `Proxy-Authorization`, `Cookie`) and
    ///   the URL's user name and password (`https://<redacted>@host/…`) read `<redacted>` unless
    ///   `revealingSecrets` is set: the line is safe to log (see ``Redaction``).
    /// - A body from a file is `--data-binary @PATH` (curl reads it); a body of bytes that are not
    ///   UTF-8 text, or that contain a NUL, is written as `--data-binary @-` with a note of its
    ///   size, since a shell argument cannot carry it.
    /// - The session's proxy for the URL (see ``Session/Configuration/proxy``) is `--proxy`, its
    ///   credentials redacted unless `revealingSecrets` is set, and `--noproxy` with the list
    ///   (empty or not, so that curl does not take the environment's `no_proxy`). Without one the
    ///   line has no proxy option, and curl, unlike HotPotato, then honours `http_proxy` and the
    ///   like from the environment. curl's `--proxy` serves both schemes: a redirect from `http`
    ///   to `https` (or back) with two different proxies is not described.
    /// - A field with an empty value is `-H 'Name;'`, and one the request goes without
    ///   (``withoutHeader(_:)``) `-H 'Name:'`, as curl reads them.
    /// - What the handler adds when the request runs (a resumable download's `Range`) is not
    ///   part of the line; nor is the engine's timeout.
    /// - A request that cannot be made (an invalid URL, a body that failed to encode) gives a
    ///   shell comment with the reason.
    public func cURLDescription(revealingSecrets: Bool = false) -> String {
        let configuration = session.configuration
        let request: URLRequest
        do {
            request = try spec.makeURLRequest(defaults: configuration)
        } catch {
            return "# \(error.reason)"
        }
        var arguments = ["curl"]
        let method = request.httpMethod ?? "GET"
        let hasBody: Bool
        switch spec.body {
        case .data, .file, .multipart, .stream: hasBody = true
        case .none, .invalid: hasBody = false
        }
        if method == "HEAD" {
            arguments.append("--head")
        } else if method != "GET" && !(method == "POST" && hasBody) {
            // A POST with a body is curl's default for --data-binary, and so is what a redirect
            // does to it (a 301, 302 or 303 turns it into a GET, as HotPotato does); `-X POST`
            // would keep the POST on every hop.
            arguments += ["-X", Self.shellQuoted(method)]
        }
        for (name, value) in (request.allHTTPHeaderFields ?? [:]).sorted(by: { $0.key.lowercased() < $1.key.lowercased() }) {
            // curl's -F sets the multipart type with a boundary of its own.
            if case .multipart = spec.body, name.lowercased() == "content-type" { continue }
            let shown = revealingSecrets ? value : Redaction.headerValue(value, named: name)
            // curl sends `Name;` as a field with an empty value; `Name:` (or `Name: `) it leaves out.
            arguments += ["-H", Self.shellQuoted(value.isEmpty ? "\(name);" : "\(name): \(shown)")]
        }
        // What the request goes without (curl's own `User-Agent` and `Accept` included).
        for name in spec.omittedHeaders.sorted() where request.value(forHTTPHeaderField: name) == nil {
            arguments += ["-H", Self.shellQuoted("\(Self.displayName(name)):")]
        }
        var note: String?
        switch spec.body {
        case .data(let data):
            if let text = String(data: data, encoding: .utf8), !text.contains("\0") {
                arguments += ["--data-binary", Self.shellQuoted(text)]
            } else {
                arguments += ["--data-binary", "@-"]
                note = "# \(data.count) bytes of binary body on standard input"
            }
        case .file(let url):
            arguments += ["--data-binary", Self.shellQuoted("@" + url.path)]
        case .multipart(let form):
            let (formArguments, formNote) = Self.curlArguments(for: form)
            arguments += formArguments
            note = formNote
        case .stream(let source):
            arguments += ["--data-binary", "@-"]
            note = "# the body streamed from an \(source.kind)\(source.length.map { ", \($0) bytes" } ?? "") on standard input"
        case .none, .invalid:
            break
        }
        let redirects = options.redirects ?? configuration.redirects
        if redirects.maximumRedirects > 0 {
            // A custom behaviour's closure has no curl equivalent: its limit is what curl gets.
            arguments += ["-L", "--max-redirs", String(redirects.maximumRedirects)]
        }
        if let url = request.url {
            do {
                if let proxy = try configuration.proxy.selectedProxy(for: url) {
                    // `--noproxy` even when empty: curl would otherwise exempt the hosts of the
                    // environment's `no_proxy` from `--proxy`.
                    arguments += [
                        "--proxy", Self.shellQuoted(proxy.text(revealingSecrets: revealingSecrets)),
                        "--noproxy", Self.shellQuoted(configuration.proxy.noProxy.joined(separator: ",")),
                    ]
                }
            } catch {
                return "# \(error.reason)"
            }
        }
        arguments += Self.curlTransportArguments(configuration, for: request.url, revealingSecrets: revealingSecrets)
        let url = request.url?.absoluteString ?? spec.urlText
        arguments.append(Self.shellQuoted(revealingSecrets ? url : Redaction.redactingCredentials(inURL: url)))
        // Last, so that the comment stays a comment.
        if let note { arguments.append(note) }
        return arguments.joined(separator: " ")
    }

    /// A lowercased field name as it is usually written: `user-agent` → `User-Agent`.
    private static func displayName(_ name: String) -> String {
        name.split(separator: "-", omittingEmptySubsequences: false).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: "-")
    }

    /// curl's arguments for the session's trust and transport controls: `--cacert`, `--cert` (its
    /// password `<redacted>` unless `revealingSecrets`), `--key`, `--cert-type`, `--pinnedpubkey`
    /// (the pins of `url`'s host), `--unix-socket`, `--resolve`/`--connect-to`, `--interface`,
    /// `--tlsv1.2` (or another version), `--connect-timeout`.
    static func curlTransportArguments(_ configuration: Session.Configuration, for url: URL?, revealingSecrets: Bool) -> [String] {
        var arguments: [String] = []
        if let authorities = configuration.certificateAuthorities { arguments += ["--cacert", shellQuoted(authorities.path)] }
        if let certificate = configuration.clientCertificate {
            // curl reads `FILE:PASSWORD`: a `:` in the file's name is escaped.
            var value = certificate.certificate.path.replacingOccurrences(of: ":", with: "\\:")
            if let password = certificate.password { value += ":" + (revealingSecrets ? password : Redaction.placeholder) }
            arguments += ["--cert", shellQuoted(value)]
            if certificate.format == .pkcs12 { arguments += ["--cert-type", "P12"] }
            if let key = certificate.key { arguments += ["--key", shellQuoted(key.path)] }
        }
        if url?.scheme?.lowercased() == "https", let host = url?.host, let pins = configuration.publicKeyPins?.curlValue(forHost: host) {
            arguments += ["--pinnedpubkey", shellQuoted(pins)]
        }
        if let socket = configuration.unixSocketPath { arguments += ["--unix-socket", shellQuoted(socket)] }
        for override in configuration.addressOverrides {
            arguments += override.connectPort == nil
                ? ["--resolve", shellQuoted("\(override.host):\(override.port):\(AddressOverride.bracketed(override.address))")]
                : ["--connect-to", shellQuoted(override.curlConnectTo)]
        }
        if let local = configuration.localAddress { arguments += ["--interface", shellQuoted(local)] }
        if let minimum = configuration.minimumTLSVersion {
            arguments.append(minimum == .v1_0 ? "--tlsv1" : "--tlsv1.\(minimum.rawValue)")
        }
        if let connect = configuration.connectTimeout, connect > 0, connect.isFinite {
            arguments += ["--connect-timeout", connect.formatted(.number.precision(.fractionLength(0...3)).grouping(.never))]
        }
        return arguments
    }

    /// curl's `-F` arguments for `form`: `name=value` for a text field, `name=@path` with its
    /// `type` and `filename` for a file, and for bytes that are not text, a note that they are left
    /// out.
    static func curlArguments(for form: MultipartFormData) -> (arguments: [String], note: String?) {
        var arguments: [String] = []
        var omitted: [String] = []
        for part in form.parts {
            // curl's -F syntax gives `;`, `,` and `"` meanings of their own in file names and types.
            func attributes() -> String {
                var text = part.contentType.map { ";type=\($0)" } ?? ""
                if let fileName = part.fileName { text += ";filename=\"\(fileName.replacingOccurrences(of: "\"", with: "\\\""))\"" }
                return text
            }
            switch part.content {
            case .file(let url):
                arguments += ["-F", shellQuoted("\(part.name)=@\"\(url.path)\"" + attributes())]
            case .data(let data):
                if part.fileName == nil, part.contentType == nil, let text = String(data: data, encoding: .utf8), !text.contains("\0"),
                   !text.hasPrefix("@"), !text.hasPrefix("<") {
                    arguments += ["--form-string", shellQuoted("\(part.name)=\(text)")]
                } else {
                    omitted.append(part.name)
                }
            }
        }
        let note = omitted.isEmpty ? nil : "# parts of bytes left out: \(omitted.joined(separator: ", "))"
        return (arguments, note)
    }

    /// `text` as one argument of a POSIX shell: in single quotes, each `'` written as `'\''`.
    static func shellQuoted(_ text: String) -> String {
        if !text.isEmpty, text.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_./:@=,".unicodeScalars.contains($0)) }) {
            return text
        }
        return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
