import Foundation
import HotPotato

/// Bodies and chunkings shared by the microbenchmarks: the same bytes for HotPotato and for each
/// peer it is compared with.
public enum Fixtures {
    /// Binary bytes of a repeating, position-dependent pattern.
    public static func binary(_ count: Int) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ ($0 >> 8)) })
    }

    /// UTF-8 text, mostly ASCII with some multi-byte characters, about `count` bytes.
    public static func text(_ count: Int) -> Data {
        let line = "HotPotato streams response bodies — naïve café, Grüße, 世界, 🥔. 0123456789\n"
        var text = ""
        text.reserveCapacity(count + line.utf8.count)
        while text.utf8.count < count { text += line }
        return Data(text.utf8)
    }

    /// A JSON array of user-like objects, about `count` bytes: the shape of the end-to-end run's
    /// document.
    public static func jsonDocument(_ count: Int) -> Data {
        var text = "["
        var index = 0
        while text.utf8.count < count {
            if index > 0 { text += "," }
            text += """
                {"id":\(index),"name":"User \(index)","email":"user\(index)@example.com","active":\(index % 3 != 0),\
                "score":\(Double(index % 1000) / 7),"tags":["alpha","beta","gamma"],\
                "address":{"street":"\(index) Main Street","city":"Springfield","zip":"\(10000 + index % 90000)"},\
                "bio":"Lorem ipsum dolor sit amet, consectetur adipiscing elit. Grüße ✓ \(index)"}
                """
            index += 1
        }
        return Data((text + "]").utf8)
    }

    /// The objects of ``jsonDocument(_:)``, for `JSONDecoder`.
    public struct User: Decodable, Sendable {
        public struct Address: Decodable, Sendable {
            public let street: String
            public let city: String
            public let zip: String
        }

        public let id: Int
        public let name: String
        public let email: String
        public let active: Bool
        public let score: Double
        public let tags: [String]
        public let address: Address
        public let bio: String
    }

    /// A numbers-heavy JSON document of about `count` bytes: an array of rows of integers,
    /// decimals and exponents, small and large.
    /// The end-to-end run's small document (the small-request scenarios and their
    /// microbenchmark): an array of objects, about 1 KiB.
    public static let smallJSONDocument: Data = {
        var items: [String] = []
        var index = 0
        repeat {
            items.append(#"{"id":\#(index),"name":"item \#(index)","ok":true}"#)
            index += 1
        } while items.joined(separator: ",").utf8.count < 1000
        return Data("[\(items.joined(separator: ","))]".utf8)
    }()

    public static func numbersDocument(_ count: Int) -> Data {
        var text = "["
        text.reserveCapacity(count + 200)
        var index = 0
        while text.utf8.count < count {
            if index > 0 { text += "," }
            let small = index % 977
            text += "[\(index),\(Double(index) * 1.0001),\(-index * 7919),\(Double(small) / 3),"
                + "1.5e\(index % 300 - 150),\(index % 2 == 0 ? "0.25" : "-12345.678901"),\(index * 1_000_003)]"
            index += 1
        }
        return Data((text + "]").utf8)
    }

    /// The rows of ``numbersDocument(_:)``, for `JSONDecoder`.
    public typealias NumberRows = [[Double]]

    /// A string- and Unicode-heavy JSON document of about `count` bytes: articles whose titles and
    /// bodies mix scripts, emoji and escapes.
    public static func stringsDocument(_ count: Int) -> Data {
        let sentences = [
            "HotPotato streams response bodies as they arrive.",
            "Grüße aus Köln — naïve café, crème brûlée, façade.",
            "日本語のテキストも正しく扱えます。",
            "Съешь же ещё этих мягких французских булок, да выпей чаю.",
            "Ελληνικά: Ξεσκεπάζω την ψυχοφθόρα βδελυγμία.",
            #"Emoji too: 🥔🍟🔥 and a \"quoted\" word."#,
            "中文文本：快速的棕色狐狸跳过了懒狗。",
            #"Line one\nLine two\tTabbed, and \u00e9\u4e2d\ud83e\udd54 escapes."#,
            "العربية: نص تجريبي للاختبار.",
            "Plain ASCII prose about parsing JSON quickly and correctly, without surprises.",
        ]
        func prose(_ seed: Int, _ count: Int) -> String {
            (0..<count).map { sentences[(seed &* 7 &+ $0 &* 3) % sentences.count] }.joined(separator: " ")
        }
        let authors = ["Zoë", "Łukasz", "田中", "Ólafur", "Amélie"]
        var text = "["
        text.reserveCapacity(count + 2000)
        var index = 0
        while text.utf8.count < count {
            if index > 0 { text += "," }
            text += #"{"id":\#(index),"author":"\#(authors[index % 5]) \#(index)","title":"\#(prose(index, 1))","#
                + #""body":"\#(prose(index + 1, 3 + index % 8))","tags":["ünïcödé","日本","text"]}"#
            index += 1
        }
        return Data((text + "]").utf8)
    }

    /// The articles of ``stringsDocument(_:)``, for `JSONDecoder`.
    public struct Article: Decodable, Sendable {
        public let id: Int
        public let author: String
        public let title: String
        public let body: String
        public let tags: [String]
    }

    /// `data` split into chunks of `size` bytes, as a transport would deliver it.
    public static func chunks(_ data: Data, size: Int) -> [Data] {
        stride(from: 0, to: data.count, by: size).map { Data(data[$0..<min($0 + size, data.count)]) }
    }

    /// A 200 response head with a type and a length.
    public static func head(contentType: String, length: Int) -> ResponseHead {
        ResponseHead(status: 200, headers: ["Content-Type": contentType, "Content-Length": String(length)])
    }

    /// The chunk sizes every handler is fed with: URLSession's 16 KiB and a larger 64 KiB.
    public static let chunkSizes = [16 * 1024, 64 * 1024]

    /// `16KiB` or `64KiB`: benchmark names stay free of spaces and punctuation, which the
    /// benchmark tool's threshold files cannot match.
    public static func label(_ size: Int) -> String { "\(size / 1024)KiB" }

    /// Whether this is a smoke run (CI): few iterations, so that the harness never rots.
    public static var isSmoke: Bool { ProcessInfo.processInfo.environment["HOTPOTATO_BENCH_SMOKE"] == "1" }
}
