import Foundation

/// A version of TLS, for ``Session/Configuration/minimumTLSVersion`` (curl's `--tlsv1.2`).
public enum TLSVersion: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    /// TLS 1.0 (RFC 2246), deprecated (RFC 8996).
    case v1_0
    /// TLS 1.1 (RFC 4346), deprecated (RFC 8996).
    case v1_1
    /// TLS 1.2 (RFC 5246).
    case v1_2
    /// TLS 1.3 (RFC 8446).
    case v1_3

    public static func < (lhs: TLSVersion, rhs: TLSVersion) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `TLS 1.2`.
    public var description: String {
        switch self {
        case .v1_0: "TLS 1.0"
        case .v1_1: "TLS 1.1"
        case .v1_2: "TLS 1.2"
        case .v1_3: "TLS 1.3"
        }
    }

    /// libcurl's `CURL_SSLVERSION_TLSv1_0` … `CURL_SSLVERSION_TLSv1_3` (4 … 7).
    var curlValue: Int { 4 + rawValue }
}
