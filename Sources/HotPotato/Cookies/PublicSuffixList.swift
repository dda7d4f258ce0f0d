import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Which domains a cookie may name: never a public suffix (`com`, `co.uk`, `github.io`), where it
/// would reach every site under it.
///
/// The Public Suffix List comes from libpsl, loaded at run time when it is there (libcurl on
/// Debian and Ubuntu depends on it, so it usually is) — the newest list on the system
/// (`psl_latest`), else the one built into the library — and HotPotato never needs it: without it,
/// a conservative rule stands in (see ``fallbackSuffixes``).
enum PublicSuffixList {
    /// `"libpsl"` or `"built-in fallback"`: which rule decides.
    static var source: String { PSL.shared == nil ? "built-in fallback" : "libpsl" }

    /// Whether a cookie set by `host` may carry `Domain=domain` (both lowercased, no leading dot,
    /// `host` not an IP address): `domain` is `host`, or `host` is a subdomain of it and it is not
    /// a public suffix.
    static func isCookieDomainAcceptable(host: String, domain: String) -> Bool {
        if host == domain { return true }
        guard CookieRules.domainMatches(host, domain) else { return false }
        if let psl = PSL.shared { return psl.isCookieDomainAcceptable(host: host, domain: domain) }
        return !isFallbackPublicSuffix(domain)
    }

    /// Whether `domain` is a public suffix (its owner's subdomains are other people's sites).
    static func isPublicSuffix(_ domain: String) -> Bool {
        if let psl = PSL.shared { return psl.isPublicSuffix(domain) }
        return isFallbackPublicSuffix(domain)
    }

    /// Without libpsl: any single label (`com`, `localhost`), and the common multi-label suffixes
    /// of ``fallbackSuffixes``.
    static func isFallbackPublicSuffix(_ domain: String) -> Bool {
        !domain.contains(".") || fallbackSuffixes.contains(domain)
    }

    /// The multi-label public suffixes recognised without libpsl: the second-level domains of
    /// the largest country-code registries, and hosting platforms whose subdomains are
    /// customers' sites.
    static let fallbackSuffixes: Set<String> = [
        "co.uk", "org.uk", "me.uk", "ltd.uk", "plc.uk", "net.uk", "ac.uk", "gov.uk", "sch.uk", "nhs.uk", "police.uk",
        "com.au", "net.au", "org.au", "edu.au", "gov.au", "asn.au", "id.au",
        "co.nz", "net.nz", "org.nz", "govt.nz", "ac.nz", "co.jp", "ne.jp", "or.jp", "ac.jp", "go.jp", "ed.jp", "gr.jp",
        "co.kr", "or.kr", "ne.kr", "com.cn", "net.cn", "org.cn", "gov.cn", "edu.cn", "com.hk", "org.hk", "net.hk",
        "com.tw", "org.tw", "net.tw", "com.sg", "edu.sg", "com.my", "co.in", "net.in", "org.in", "firm.in", "gen.in",
        "co.id", "or.id", "co.th", "in.th", "com.ph", "com.vn", "com.pk", "com.bd", "co.il", "org.il", "com.tr",
        "gen.tr", "co.za", "org.za", "web.za", "com.ng", "co.ke", "com.eg", "com.sa", "com.br", "net.br", "org.br",
        "gov.br", "com.ar", "com.mx", "org.mx", "com.co", "com.pe", "com.ve", "com.uy", "co.ve", "com.ua", "org.ua",
        "co.ua", "com.pl", "net.pl", "org.pl", "co.at", "or.at", "com.es", "org.es", "com.gr", "co.hu", "com.ru",
        "github.io", "gitlab.io", "herokuapp.com", "appspot.com", "blogspot.com", "cloudfront.net", "azurewebsites.net",
        "netlify.app", "vercel.app", "pages.dev", "workers.dev", "web.app", "firebaseapp.com", "s3.amazonaws.com",
    ]
}

/// libpsl, reached through `dlopen`: no header, no link-time dependency. Its context is read-only
/// once made, and libpsl's look-ups are safe from any thread.
private final class PSL: @unchecked Sendable {
    private typealias Context = OpaquePointer
    private typealias Latest = @convention(c) (UnsafePointer<CChar>?) -> Context?
    private typealias Builtin = @convention(c) () -> Context?
    private typealias IsPublicSuffix = @convention(c) (Context?, UnsafePointer<CChar>?) -> Int32
    private typealias IsAcceptable = @convention(c) (Context?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32

    /// Loaded once; `nil` where libpsl is missing, lacks a function, or has no list.
    static let shared: PSL? = PSL()

    // Set once in `init`; the library is never closed, the context never freed.
    private let context: Context
    private let isPublicSuffixFunction: IsPublicSuffix
    private let isAcceptableFunction: IsAcceptable

    private init?() {
        #if os(Linux) || os(macOS)
        let names = ["libpsl.so.5", "libpsl.5.dylib", "/opt/homebrew/lib/libpsl.5.dylib", "/usr/local/lib/libpsl.5.dylib"]
        guard let library = names.lazy.compactMap({ dlopen($0, RTLD_NOW | RTLD_LOCAL) }).first else { return nil }
        func symbol<T>(_ name: String, as type: T.Type) -> T? {
            dlsym(library, name).map { unsafeBitCast($0, to: type) }
        }
        guard let builtin = symbol("psl_builtin", as: Builtin.self),
              let isPublicSuffix = symbol("psl_is_public_suffix", as: IsPublicSuffix.self),
              let isAcceptable = symbol("psl_is_cookie_domain_acceptable", as: IsAcceptable.self),
              let context = symbol("psl_latest", as: Latest.self)?(nil) ?? builtin()
        else { return nil }
        self.context = context
        isPublicSuffixFunction = isPublicSuffix
        isAcceptableFunction = isAcceptable
        #else
        return nil
        #endif
    }

    func isPublicSuffix(_ domain: String) -> Bool {
        isPublicSuffixFunction(context, domain) != 0
    }

    func isCookieDomainAcceptable(host: String, domain: String) -> Bool {
        isAcceptableFunction(context, host, domain) != 0
    }
}
