import Foundation

/// Keys under a `JSONDecoder.KeyDecodingStrategy`.
enum JSONKeyConversion {
    /// Converted key → the member's value, under the key strategy; the first of two members whose
    /// keys convert alike wins, as in `JSONDecoder`.
    static func convert<Value>(
        _ members: [(key: String, value: Value)], strategy: JSONDecoder.KeyDecodingStrategy, at node: CodingPathNode,
        cache: inout [String: String]
    ) -> [String: Value] {
        var converted = [String: Value](minimumCapacity: members.count)
        for member in members {
            let name: String
            switch strategy {
            case .convertFromSnakeCase:
                if let known = cache[member.key] {
                    name = known
                } else {
                    name = JSONDecodingStrategies.camelCase(fromSnakeCase: member.key)
                    cache[member.key] = name
                }
            case .custom(let convert):
                name = convert(node.path + [AnyCodingKey(member.key)]).stringValue
            default:
                name = member.key
            }
            if converted[name] == nil { converted[name] = member.value }
        }
        return converted
    }
}
