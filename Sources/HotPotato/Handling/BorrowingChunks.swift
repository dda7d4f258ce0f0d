/// A handler that can say whether it may be lent chunks an engine still owns (see
/// `SelectiveDiscarder.receivesBorrowedChunks`).
protocol BorrowingChunks {
    var receivesBorrowedChunks: Bool { get }
}

extension SelectiveDiscarder: BorrowingChunks {}
