import Foundation

/// Maps charset labels to `String.Encoding`, finds byte-order marks, and decodes text strictly.
enum TextEncodings {
    /// The IANA charset labels HotPotato decodes (lowercased), with their common aliases.
    static let labels: [String: String.Encoding] = [
        "utf-8": .utf8, "utf8": .utf8, "unicode-1-1-utf-8": .utf8,
        "us-ascii": .ascii, "ascii": .ascii, "ansi_x3.4-1968": .ascii, "iso646-us": .ascii,
        "iso-8859-1": .isoLatin1, "iso8859-1": .isoLatin1, "iso_8859-1": .isoLatin1,
        "latin1": .isoLatin1, "l1": .isoLatin1, "cp819": .isoLatin1,
        "iso-8859-2": .isoLatin2, "iso8859-2": .isoLatin2, "latin2": .isoLatin2, "l2": .isoLatin2,
        "windows-1250": .windowsCP1250, "cp1250": .windowsCP1250,
        "windows-1251": .windowsCP1251, "cp1251": .windowsCP1251,
        "windows-1252": .windowsCP1252, "cp1252": .windowsCP1252, "x-cp1252": .windowsCP1252,
        "windows-1253": .windowsCP1253, "cp1253": .windowsCP1253,
        "windows-1254": .windowsCP1254, "cp1254": .windowsCP1254,
        "utf-16": .utf16, "utf-16le": .utf16LittleEndian, "utf-16be": .utf16BigEndian,
        "utf-32": .utf32, "utf-32le": .utf32LittleEndian, "utf-32be": .utf32BigEndian,
        "shift_jis": .shiftJIS, "shift-jis": .shiftJIS, "sjis": .shiftJIS, "x-sjis": .shiftJIS,
        "iso-2022-jp": .iso2022JP, "macintosh": .macOSRoman, "mac": .macOSRoman,
    ]

    static func encoding(forCharset label: String) -> String.Encoding? {
        labels[ASCII.lowercased(label.trimmingCharacters(in: .whitespaces))]
    }

    /// The encoding a byte-order mark at the start of `data` announces, and the mark's length.
    static func byteOrderMark(of data: Data) -> (encoding: String.Encoding, length: Int)? {
        let prefix = [UInt8](data.prefix(4))
        if prefix.starts(with: [0xEF, 0xBB, 0xBF]) { return (.utf8, 3) }
        if prefix.starts(with: [0xFF, 0xFE, 0x00, 0x00]) { return (.utf32LittleEndian, 4) }
        if prefix.starts(with: [0x00, 0x00, 0xFE, 0xFF]) { return (.utf32BigEndian, 4) }
        if prefix.starts(with: [0xFF, 0xFE]) { return (.utf16LittleEndian, 2) }
        if prefix.starts(with: [0xFE, 0xFF]) { return (.utf16BigEndian, 2) }
        return nil
    }

    /// A decoding failure: the encoding's name and, for UTF-8, the first invalid byte.
    struct Failure: Error {
        var encodingName: String
        var byteOffset: Int?
    }

    /// Decodes `data` strictly: any invalid sequence fails, nothing is replaced.
    ///
    /// A byte-order mark that agrees with `encoding` is dropped. For the endian-neutral
    /// `.utf16` and `.utf32`, a mark picks the byte order; without one, big-endian is used
    /// (RFC 2781).
    static func decode(_ data: Data, as encoding: String.Encoding) throws(Failure) -> String {
        var encoding = encoding
        var body = data
        if let mark = byteOrderMark(of: data), mark.encoding == encoding
            || (encoding == .utf16 && [.utf16LittleEndian, .utf16BigEndian].contains(mark.encoding))
            || (encoding == .utf32 && [.utf32LittleEndian, .utf32BigEndian].contains(mark.encoding)) {
            encoding = mark.encoding
            body = data.dropFirst(mark.length)
        } else if encoding == .utf16 {
            encoding = .utf16BigEndian
        } else if encoding == .utf32 {
            encoding = .utf32BigEndian
        }

        if encoding == .utf8 {
            // One validating pass where the standard library has it; the offset of the first bad
            // byte is looked for only when there is one.
            if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
                if let text = String(validating: body, as: UTF8.self) { return text }
            } else if UTF8Validation.firstInvalidOffset(in: body) == nil {
                return String(decoding: body, as: UTF8.self)
            }
            let offset = UTF8Validation.firstInvalidOffset(in: body) ?? 0
            throw Failure(encodingName: name(of: encoding), byteOffset: offset + (data.count - body.count))
        }
        let unit: Int
        switch encoding {
        case .utf16LittleEndian, .utf16BigEndian: unit = 2
        case .utf32LittleEndian, .utf32BigEndian: unit = 4
        default: unit = 1
        }
        guard body.count % unit == 0, let text = String(data: body, encoding: encoding) else {
            throw Failure(encodingName: name(of: encoding), byteOffset: nil)
        }
        return text
    }

    /// The IANA name of an encoding, for messages.
    static func name(of encoding: String.Encoding) -> String {
        switch encoding {
        case .utf8: return "UTF-8"
        case .ascii: return "US-ASCII"
        case .isoLatin1: return "ISO-8859-1"
        case .isoLatin2: return "ISO-8859-2"
        case .windowsCP1250: return "windows-1250"
        case .windowsCP1251: return "windows-1251"
        case .windowsCP1252: return "windows-1252"
        case .windowsCP1253: return "windows-1253"
        case .windowsCP1254: return "windows-1254"
        case .utf16: return "UTF-16"
        case .utf16LittleEndian: return "UTF-16LE"
        case .utf16BigEndian: return "UTF-16BE"
        case .utf32: return "UTF-32"
        case .utf32LittleEndian: return "UTF-32LE"
        case .utf32BigEndian: return "UTF-32BE"
        case .shiftJIS: return "Shift_JIS"
        case .iso2022JP: return "ISO-2022-JP"
        case .macOSRoman: return "macintosh"
        default: return "\(encoding)"
        }
    }
}
