/// Options or arguments that do not make a valid command: exit status 2, with the message and a
/// pointer to `--help`.
struct UsageError: Error {
    let message: String

    init(_ message: String) {
        self.message = message
    }
}
