/// A small seeded pseudo-random generator (SplitMix64, Steele, Lea and Flood 2014) for the fault
/// soak: the same seed gives the same numbers on every machine and toolchain, so a seed printed by
/// a failing run reproduces its case list exactly.
///
/// Its helpers draw integers with plain modular reduction rather than the standard library's
/// `random(in:using:)`, whose algorithm is not promised to stay the same across Swift versions.
/// The bias is negligible for the small ranges the soak draws from.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    /// The generator of case `index` of the soak seeded with `seed`: each case draws from a stream
    /// of its own, so that one case can be rebuilt without building the ones before it.
    init(seed: UInt64, index: Int) {
        var mixer = SplitMix64(seed: seed ^ (UInt64(truncatingIfNeeded: index) &* 0xD1B5_4A32_D192_ED03))
        state = mixer.next()
    }

    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// An integer in `range`.
    mutating func int(in range: ClosedRange<Int>) -> Int {
        let span = UInt64(range.upperBound - range.lowerBound) &+ 1
        guard span != 0 else { return Int(truncatingIfNeeded: next()) }
        return range.lowerBound + Int(next() % span)
    }

    /// `true` with probability `probability` (0…1).
    mutating func chance(_ probability: Double) -> Bool {
        Double(next() >> 11) / Double(1 << 53) < probability
    }

    /// A number of seconds in `range`.
    mutating func seconds(in range: ClosedRange<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * Double(next() >> 11) / Double(1 << 53)
    }

    /// One of `elements`, which must not be empty.
    mutating func pick<Element>(_ elements: [Element]) -> Element {
        elements[int(in: 0...(elements.count - 1))]
    }

    /// One of `choices`, each as likely as its weight.
    mutating func weighted<Element>(_ choices: [(Int, Element)]) -> Element {
        var roll = int(in: 0...(choices.reduce(0) { $0 + $1.0 } - 1))
        for (weight, element) in choices {
            if roll < weight { return element }
            roll -= weight
        }
        return choices[choices.count - 1].1
    }
}
