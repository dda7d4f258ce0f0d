import Foundation
import HotPotato
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `potato`: a command-line downloader built on HotPotato. See `potato --help`.
@main
enum Potato {
    static func main() async {
        let status: ExitStatus
        do {
            switch try CommandLineParser.parse(Array(CommandLine.arguments.dropFirst())) {
            case .help(let text):
                Console.output(text)
                status = .success
            case .get(let options):
                status = await GetCommand(options: options).run()
            }
        } catch {
            // An argument may carry control characters (a line break, an escape sequence).
            Console.error("potato: \(TerminalText.safe(error.message))\npotato: see potato --help\n")
            status = .usage
        }
        exit(status.rawValue)
    }
}
