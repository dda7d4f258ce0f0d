import Foundation

/// Keys under a `JSONDecoder.KeyDecodingStrategy`.
enum JSONKeyConversion {
    /// Converted key → the member's value, under the key strategy; the first of two members whose
    /// keys convert alike wins, as in `JSONDecoder`. Keys are compared by their bytes
    /// (``JSONMemberName``), before and after conversion.
    /// `path` is the object's coding path, asked for only by a `.custom` strategy.
    static func convert<Value>(
        _ members: [(key: String, value: Value)], strategy: JSONDecoder.KeyDecodingStrategy, at path: () -> [any CodingKey],
        cache: inout [JSONMemberName: String]
    ) -> [JSONMemberName: Value] {
        var converted = [JSONMemberName: Value](minimumCapacity: members.count)
        var objectPath: [any CodingKey]?
        for member in members {
            let name: String
            switch strategy {
            case .convertFromSnakeCase:
                if let known = cache[JSONMemberName(member.key)] {
                    name = known
                } else {
                    name = JSONDecodingStrategies.camelCase(fromSnakeCase: member.key)
                    cache[JSONMemberName(member.key)] = name
                }
            case .custom(let convert):
                if objectPath == nil { objectPath = path() }
                name = convert(objectPath! + [AnyCodingKey(member.key)]).stringValue
            default:
                name = member.key
            }
            if converted[JSONMemberName(name)] == nil { converted[JSONMemberName(name)] = member.value }
        }
        return converted
    }
}
