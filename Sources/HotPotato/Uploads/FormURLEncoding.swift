import Foundation

/// The `application/x-www-form-urlencoded` serializer of the WHATWG URL standard: each name and
/// value as UTF-8, where `*`, `-`, `.`, `_` and ASCII letters and digits stay as they are, a space
/// becomes `+`, and every other byte `%XX` (upper-case hexadecimal); name and value joined by `=`,
/// pairs by `&`.
enum FormURLEncoding {
    static func encode<Pairs: Sequence>(_ pairs: Pairs) -> Data where Pairs.Element == (String, String) {
        var bytes: [UInt8] = []
        for (index, (name, value)) in pairs.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: "&")) }
            append(name, to: &bytes)
            bytes.append(UInt8(ascii: "="))
            append(value, to: &bytes)
        }
        return Data(bytes)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func append(_ text: String, to bytes: inout [UInt8]) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                bytes.append(byte)
            case UInt8(ascii: " "):
                bytes.append(UInt8(ascii: "+"))
            default:
                bytes += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
            }
        }
    }
}
