/// Carries a value that is not `Sendable` across a concurrency boundary where the code that uses
/// it guarantees it is never used from two places at once.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
