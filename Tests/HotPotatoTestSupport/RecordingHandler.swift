import Foundation
@testable import HotPotato

/// A handler that records the calls it receives and can be told to fail at any step.
final class RecordingHandler: ContentHandler {
    enum Step: Equatable {
        case prepare(Int)
        case receive(Int)
        case finish
        case cleanUp
    }

    struct Boom: Error {}

    var steps: [Step] = []
    var failOnPrepare: (any Error)?
    var failOnReceive: (any Error)?
    var failOnFinish: (any Error)?
    var received = Data()

    func prepare(for head: ResponseHead) throws {
        steps.append(.prepare(head.status))
        if let failOnPrepare { throw failOnPrepare }
    }

    func receive(_ chunk: Data) throws {
        steps.append(.receive(chunk.count))
        if let failOnReceive { throw failOnReceive }
        received.append(chunk)
    }

    func finish() throws -> Data {
        steps.append(.finish)
        if let failOnFinish { throw failOnFinish }
        return received
    }

    func cleanUp() {
        steps.append(.cleanUp)
    }
}
