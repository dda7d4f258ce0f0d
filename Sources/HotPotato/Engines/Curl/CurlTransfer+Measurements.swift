import CCurl
import Foundation

extension CurlTransfer {
    /// How many new connections the request just performed on `handle` made.
    static func connectionsMade(by handle: UnsafeMutableRawPointer) -> Int {
        var count = 0
        return hp_curl_getinfo_long(handle, Int32(HP_CURLINFO_NUM_CONNECTS), &count) == 0 ? count : 0
    }

    /// Hands the sink the phases and the connection of the request just performed (the last of
    /// the chain), before the transfer's end is reported; or, `atHead`, as they stand when the
    /// final response's head arrives (see ``TransferSink/measuresAtHead``).
    func reportMeasurements(_ handle: UnsafeMutableRawPointer, atHead: Bool = false) {
        func seconds(_ info: Int32) -> TimeInterval? {
            var microseconds: Int64 = 0
            guard hp_curl_getinfo_off(handle, info, &microseconds) == 0 else { return nil }
            return Double(microseconds) / 1_000_000
        }
        func text(_ info: Int32) -> String? {
            var pointer: UnsafePointer<CChar>?
            guard hp_curl_getinfo_string(handle, info, &pointer) == 0, let pointer else { return nil }
            let value = String(cString: pointer)
            return value.isEmpty ? nil : value
        }
        func number(_ info: Int32) -> Int? {
            var value = 0
            return hp_curl_getinfo_long(handle, info, &value) == 0 && value > 0 ? value : nil
        }
        // At the head the total is not known yet (libcurl's is not kept up to date before the end).
        var phases = TransferPhases(
            nameLookup: seconds(Int32(HP_CURLINFO_NAMELOOKUP_TIME_T)), connect: seconds(Int32(HP_CURLINFO_CONNECT_TIME_T)),
            tlsHandshake: nil, firstByte: seconds(Int32(HP_CURLINFO_STARTTRANSFER_TIME_T)),
            total: atHead ? nil : seconds(Int32(HP_CURLINFO_TOTAL_TIME_T)))
        // 0 when no TLS handshake was made (plain `http`), and on a reused connection.
        if let handshake = seconds(Int32(HP_CURLINFO_APPCONNECT_TIME_T)), handshake > 0 { phases.tlsHandshake = handshake }
        var received: Int64 = 0
        var connection = ConnectionFacts(
            remoteAddress: text(Int32(HP_CURLINFO_PRIMARY_IP)), remotePort: number(Int32(HP_CURLINFO_PRIMARY_PORT)),
            localAddress: text(Int32(HP_CURLINFO_LOCAL_IP)), localPort: number(Int32(HP_CURLINFO_LOCAL_PORT)),
            // At the head, the request being received has not been counted yet (see `conclude`).
            connectionsMade: atHead ? connectionsMade + Self.connectionsMade(by: handle) : connectionsMade,
            bodyBytesReceived: hp_curl_getinfo_off(handle, Int32(HP_CURLINFO_SIZE_DOWNLOAD_T), &received) == 0 ? received : nil)
        connection.tlsVersion = tlsFacts.version.map { String(cString: $0) }
        connection.tlsCipherSuite = tlsFacts.cipher.map { String(cString: $0) }
        sink.record(phases: phases, connection: connection)
    }
}
