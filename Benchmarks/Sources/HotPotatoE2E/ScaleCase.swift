import Foundation
import ScaleKit

/// The child side of the scale scenarios in this executable:
/// `hotpotato-e2e scale CLIENT key=value…` runs one job (see `ScaleJob`) with one client and
/// prints its `SCALE` line.
enum ScaleCase {
    static let clients = ["hp-curl", "hp-urlsession", "urlsession"]

    static func run(_ arguments: [String]) async -> Never {
        guard let name = arguments.first, clients.contains(name), let job = try? ScaleJob(arguments: Array(arguments.dropFirst())) else {
            FileHandle.standardError.write(Data("usage: hotpotato-e2e scale \(clients.joined(separator: "|")) key=value…\n".utf8))
            exit(2)
        }
        switch name {
        case "hp-curl": await ScaleDriver.run(job, client: HotPotatoScaleClient(engine: .curl, perHost: job.perHost))
        case "hp-urlsession": await ScaleDriver.run(job, client: HotPotatoScaleClient(engine: .urlSession, perHost: job.perHost))
        default: await ScaleDriver.run(job, client: URLSessionScaleClient(perHost: job.perHost))
        }
    }
}
