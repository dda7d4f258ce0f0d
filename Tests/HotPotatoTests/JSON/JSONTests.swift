import Foundation
import Testing
@testable import HotPotato

@Suite struct JSONTests {
    static let value: JSON = [
        "user": ["name": "Ada", "followers": [["name": "Grace"], ["name": "Alan"]], "a.b": true],
        "list": [1, 2.5, "three", nil as JSON? ?? .null, false],
    ]

    /// `JSON.Number(text:)` takes exactly the RFC 8259 number grammar, as the parser reads it.
    @Test func aNumbersTextIsCheckedByTheGrammar() {
        for valid in ["0", "-0", "12", "-12.5e3", "1E+2", "1e-2", "0.5", "123456789012345678901234567890"] {
            #expect(JSON.Number(text: valid) != nil, "\(valid)")
        }
        for invalid in ["", "+1", "01", "-01", ".5", "5.", "1e", "1e+", "--1", "0x10", "1 ", " 1", "1,", "NaN", "Infinity", "1.2.3", "[1]", "\"1\""] {
            #expect(JSON.Number(text: invalid) == nil, "\(invalid)")
        }
    }

    @Test func keyPaths() {
        #expect(Self.value["user.name"] == "Ada")
        #expect(Self.value["user.followers.0.name"] == "Grace")
        #expect(Self.value["user.followers.1"]?["name"] == "Alan")
        #expect(Self.value["user.followers.2.name"] == nil, "out of range")
        #expect(Self.value["user.followers.x"] == nil, "not an index")
        #expect(Self.value["user.followers.-1"] == nil)
        #expect(Self.value["list.3"]?.isNull == true)
        #expect(Self.value["user.name.first"] == nil, "a string has no members")
        #expect(Self.value[""] == Self.value)
        #expect(Self.value["user.a.b"] == nil, "dots always separate")
        #expect(Self.value["user"]?[key: "a.b"] == true)
        #expect(Self.value["list"]?[1]?.doubleValue == 2.5)
        #expect(Self.value["list"]?[9] == nil)
    }

    @Test func typedAccessors() {
        let json: JSON = ["s": "x", "b": true, "i": 42, "d": 1.5, "a": [1], "o": ["k": "v"], "n": .null]
        #expect(json["s"]?.stringValue == "x")
        #expect(json["b"]?.boolValue == true)
        #expect(json["i"]?.intValue == 42)
        #expect(json["i"]?.int64Value == 42)
        #expect(json["d"]?.doubleValue == 1.5)
        #expect(json["d"]?.intValue == nil, "1.5 is not an integer")
        #expect(json["a"]?.arrayValue == [1])
        #expect(json["o"]?.objectValue == ["k": "v"])
        #expect(json["n"]?.isNull == true)
        #expect(json["s"]?.intValue == nil)
        #expect(json["i"]?.stringValue == nil)
        #expect(json["b"]?.numberValue == nil)
    }

    @Test func numbersKeepTheirDigits() throws {
        let big = try #require(JSON.Number(text: "123456789012345678901234567890"))
        #expect(big.text == "123456789012345678901234567890")
        #expect(big.int64Value == nil, "does not fit, never truncated")
        #expect(big.isInteger)
        #expect(big.doubleValue == 1.2345678901234568e29)
        let precise = try #require(JSON.Number(text: "0.1000000000000000055511151231257827"))
        #expect(precise.text == "0.1000000000000000055511151231257827")
        #expect(precise.decimalValue != nil)
        #expect(JSON.Number(text: "-9223372036854775808")?.int64Value == Int64.min)
        #expect(JSON.Number(text: "9223372036854775808")?.int64Value == nil)
        #expect(JSON.Number(text: "2e3")?.int64Value == 2000)
        #expect(JSON.Number(text: "2.50e1")?.intValue == 25)
        #expect(JSON.Number(text: "1e400")?.doubleValue == .infinity)
    }

    @Test(arguments: ["01", "+1", "1.", ".5", "1e", "1e+", "--1", "0x10", "NaN", "Infinity", "1 ", ""])
    func rejectsInvalidNumberText(_ text: String) {
        #expect(JSON.Number(text: text) == nil)
    }

    @Test func numberEqualityIsByValue() {
        #expect(JSON.Number(text: "1") == JSON.Number(1))
        #expect(JSON.Number(text: "1.0") == JSON.Number(text: "10e-1"))
        #expect(JSON.Number(text: "-0") == JSON.Number(0))
        #expect(JSON.Number(text: "1.5") != JSON.Number(text: "1.50001"))
        #expect(Set([JSON.Number(text: "100")!, JSON.Number(text: "1e2")!, JSON.Number(text: "1.00e+2")!]).count == 1)
        #expect(JSON.Number(Double.nan) == nil)
        let two: Double = 2
        #expect(JSON.Number(two)?.text == "2")
    }

    @Test func serialisation() {
        let json: JSON = ["b": [1, "two", nil as JSON? ?? .null], "a": "quote\" backslash\\ newline\n tab\t \u{01} é"]
        #expect(json.serialized() == #"{"b":[1,"two",null],"a":"quote\" backslash\\ newline\n tab\t \u0001 é"}"#, "members keep their order")
        #expect(JSON.object([:]).serialized(pretty: true) == "{}")
        #expect(JSON.array([1, ["k": true]]).serialized(pretty: true) == "[\n  1,\n  {\n    \"k\": true\n  }\n]")
    }

    @Test func objectsKeepOrderAndCompareWithoutIt() {
        let object: JSON.Object = ["z": 1, "a": 2, "m": 3]
        #expect(object.keys == ["z", "a", "m"])
        #expect(object == ["a": 2, "m": 3, "z": 1], "objects are unordered for equality")
        #expect(Set([JSON.object(object), JSON.object(["m": 3, "z": 1, "a": 2])]).count == 1)
        var edited = object
        edited["a"] = 20
        edited["b"] = 4
        edited["z"] = nil
        #expect(edited.keys == ["a", "m", "b"])
        #expect(edited["a"] == 20)
        let large = JSON.Object((0..<100).map { JSON.Object.Member(key: "k\($0)", value: JSON.number(JSON.Number($0))) })
        #expect(large["k73"] == 73)
        #expect(large["k100"] == nil)
        #expect(JSON.Object([JSON.Object.Member(key: "x", value: 1), JSON.Object.Member(key: "x", value: 2)]).members
            == [JSON.Object.Member(key: "x", value: 2)], "a repeated key: the last value wins")
    }

    @Test func roundTripsThroughCodable() throws {
        let data = try JSONEncoder().encode(Self.value)
        #expect(try JSONDecoder().decode(JSON.self, from: data) == Self.value)
        struct Event: Codable, Equatable { let type: String; let payload: JSON }
        let event = try JSONDecoder().decode(Event.self, from: Data(#"{"type":"x","payload":{"n":[1,{"m":null}]}}"#.utf8))
        #expect(event.payload["n.1.m"]?.isNull == true)
    }
}
