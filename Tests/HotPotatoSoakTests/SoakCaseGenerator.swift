import Foundation
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Builds soak cases from a seed: case `index` of seed `seed` is always the same case (on a
/// machine with the same engines and the same tmpfs support), whatever cases run before it.
enum SoakCaseGenerator {
    /// The size of the tmpfs disk-full cases write to; their bodies are larger.
    static let smallFileSystemSize = 128 * 1024

    static func makeCase(seed: UInt64, index: Int, engines: [Session.Engine], diskFullSupported: Bool) -> SoakCase {
        var random = SplitMix64(seed: seed, index: index)
        let engine = random.pick(engines)
        let fault = makeFault(&random)
        // Faults about ranges mostly meet a resumable download that has something to resume.
        let rangeFault: Bool
        switch fault {
        case .badRange, .range416, .gzip: rangeFault = true
        default: rangeFault = false
        }
        let handler = rangeFault && random.chance(0.55) ? .resumableFile : random.pick(SoakCase.Handler.allCases)
        let diskFull = diskFullSupported && handler.writesToDisk && random.chance(0.1)
        var size: Int
        if diskFull {
            size = random.int(in: (smallFileSystemSize + 32 * 1024)...(1024 * 1024))
        } else if handler.isSegmented {
            // Large enough to be split (two parts of at least 1 MiB).
            size = random.int(in: (2_200_000)...(4_000_000))
        } else {
            size = random.weighted([
                (60, random.int(in: 64...(16 * 1024))),
                (30, random.int(in: (16 * 1024)...(256 * 1024))),
                (10, random.int(in: (256 * 1024)...(2 * 1024 * 1024))),
            ])
        }
        // An unsolicited or misplaced range needs at least a few bytes to misplace.
        size = max(size, 64)
        let contentSeed = random.next()
        var partial: SoakCase.Partial?
        if handler == .resumableFile && random.chance(rangeFault ? 0.9 : 0.5) {
            let limit = diskFull ? min(size, 32 * 1024) : size
            let count = random.chance(0.1) ? limit : random.int(in: 1...limit)
            partial = SoakCase.Partial(count: count, staleValidator: random.chance(0.12))
        }
        let cancelAfter = random.chance(0.12) ? random.seconds(in: 0...0.04) : nil
        let concurrent = handler == .resumableFile && random.chance(0.25)
        let preexisting = handler.isFile && random.chance(0.2)
        let replaces = random.chance(0.5)
        let errorBodyLimit = random.chance(0.3) ? random.int(in: 1...100_000) : nil
        return SoakCase(
            seed: seed, index: index, engine: engine, handler: handler, resourceSize: size, contentSeed: contentSeed,
            fault: fault, cancelAfter: cancelAfter, concurrent: concurrent, preexisting: preexisting, replaces: replaces,
            partial: partial, diskFull: diskFull, errorBodyLimit: errorBodyLimit)
    }

    private static func makeFault(_ random: inout SplitMix64) -> SoakFault {
        let permille = random.int(in: 0...999)
        let small = random.int(in: 1...4096)
        let kind = random.weighted([
            (10, 0), (10, 1), (8, 2), (4, 3), (6, 4), (14, 5), (8, 6), (7, 7), (8, 8), (3, 9), (7, 10), (8, 11),
        ])
        switch kind {
        case 0: return .honest
        case 1: return .truncate(permille: permille)
        case 2: return .reset(permille: permille)
        case 3: return .stall(permille: permille)
        case 4: return .drip(chunk: random.int(in: 512...8192), delayMs: random.int(in: 1...8))
        case 5:
            let bad = random.pick([
                SoakFault.BadRange.wrongStart(delta: random.chance(0.5) ? small : -small),
                .short(delta: small), .longBody(extra: small), .longLength(extra: small),
                .wrongTotal(delta: random.chance(0.5) ? small : -random.int(in: 1...64)),
            ])
            return .badRange(bad, permille: max(1, permille))
        case 6: return .badContentLength(random.pick(SoakFault.BadLength.allCases))
        case 7: return .gzip
        case 8: return .redirect(status: random.pick([301, 302, 303, 307, 308]), crossOrigin: random.chance(0.7))
        case 9: return .unfollowedRedirect(status: random.pick([300, 305, 306]))
        case 10: return .range416(delta: random.pick([0, small, -random.int(in: 1...64)]))
        default:
            return .serverError(
                status: random.pick([500, 502, 503]),
                bytes: random.chance(0.7) ? random.int(in: (1024 * 1024)...(4 * 1024 * 1024)) : random.int(in: 40...70_000),
                json: random.chance(0.6))
        }
    }
}
