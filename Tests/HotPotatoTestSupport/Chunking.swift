import Foundation

/// The ways a body is split into chunks in handler tests: every handler must give the same result
/// whether bytes arrive one at a time, in odd-sized pieces, in URLSession's 16 KiB chunks, or all
/// at once.
enum Chunking: String, CaseIterable, Sendable {
    case oneByte
    case odd
    case sixteenKiB
    case whole

    var size: Int {
        switch self {
        case .oneByte: return 1
        case .odd: return 7
        case .sixteenKiB: return 16 * 1024
        case .whole: return .max
        }
    }

    func split(_ data: Data) -> [Data] {
        guard !data.isEmpty else { return [] }
        var chunks: [Data] = []
        var start = data.startIndex
        while start < data.endIndex {
            let end = data.index(start, offsetBy: min(size, data.endIndex - start))
            chunks.append(Data(data[start..<end]))
            start = end
        }
        return chunks
    }
}

