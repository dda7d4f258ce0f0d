import Foundation
@testable import HotPotato

/// Compares a ``JSON`` value with what `JSONSerialization` read from the same bytes.
enum FoundationComparison {
    static func matches(_ ours: JSON, _ theirs: Any) -> Bool {
        switch ours {
        case .null:
            return theirs is NSNull
        case .bool(let value):
            guard let number = theirs as? NSNumber, isBoolean(number) else { return false }
            return number.boolValue == value
        case .number(let value):
            guard let number = theirs as? NSNumber, !isBoolean(number) else { return false }
            if let integer = value.int64Value, value.text.allSatisfy({ $0.isNumber || $0 == "-" }) {
                return number.int64Value == integer
            }
            let expected = value.doubleValue
            return number.doubleValue == expected
                || abs(number.doubleValue - expected) <= abs(expected) * 1e-15
        case .string(let value):
            return (theirs as? String) == value
        case .array(let elements):
            guard let array = theirs as? [Any], array.count == elements.count else { return false }
            return zip(elements, array).allSatisfy { matches($0, $1) }
        case .object(let object):
            guard let dictionary = theirs as? [String: Any], dictionary.count == object.count else { return false }
            return object.allSatisfy { member in dictionary[member.key].map { matches(member.value, $0) } ?? false }
        }
    }

    /// Whether Foundation read the number as `true` or `false` (it gives booleans a class of
    /// their own, `__NSCFBoolean`, on every platform).
    private static func isBoolean(_ number: NSNumber) -> Bool {
        number === NSNumber(value: true) || number === NSNumber(value: false)
    }
}
