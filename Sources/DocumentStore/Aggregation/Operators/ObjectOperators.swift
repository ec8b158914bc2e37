import BSON

extension ExpressionOperator {
    static let objects: [ExpressionOperator] = [
        ExpressionOperator("$mergeObjects", variadic) { args throws(StoreError) in
            var merged = BSONDocument()
            for arg in args {
                if arg.isNullish { continue }
                guard case .document(let document)? = arg else {
                    throw .location(
                        40400,
                        "$mergeObjects requires object inputs, but input \(arg!.shellDescription) is of type "
                            + arg!.typeName)
                }
                for (key, value) in document { merged[key] = value }
            }
            return .document(merged)
        },
        ExpressionOperator("$objectToArray", 1...1) { args throws(StoreError) in
            if args[0].isNullish { return .null }
            guard case .document(let document)? = args[0] else {
                throw .location(40390, "$objectToArray requires a document input, found: \(typeName(args[0]))")
            }
            return .array(document.map { .document(["k": .string($0.key), "v": $0.value]) })
        },
        ExpressionOperator("$arrayToObject", 1...1) { args throws(StoreError) in
            try ObjectOperators.arrayToObject(args[0])
        },
    ]
}

enum ObjectOperators {
    /// `[[k, v], …]` or `[{k, v}, …]` (one form throughout) into a document; a repeated key keeps its last value.
    static func arrayToObject(_ input: BSON?) throws(StoreError) -> BSON? {
        if input.isNullish { return .null }
        guard case .array(let elements)? = input else {
            throw .location(40386, "$arrayToObject requires an array input, found: \(typeName(input))")
        }
        var output = BSONDocument()
        var pairForm: Bool?
        for element in elements {
            let key: BSON
            let value: BSON
            switch element {
            case .array(let pair):
                guard pairForm != false else {
                    throw .location(
                        40391,
                        "$arrayToObject requires a consistent input format. Elements must all be arrays or all be objects. Array was detected, now found: object"
                    )
                }
                pairForm = true
                guard pair.count == 2 else {
                    throw .location(
                        40397, "$arrayToObject requires an array of size 2 arrays,found array of size: \(pair.count)")
                }
                key = pair[0]
                value = pair[1]
            case .document(let document):
                guard pairForm != true else {
                    throw .location(
                        40391,
                        "$arrayToObject requires a consistent input format. Elements must all be arrays or all be objects. Object was detected, now found: array"
                    )
                }
                pairForm = false
                guard document.count == 2, let k = document["k"], let v = document["v"] else {
                    throw .location(
                        40392,
                        "$arrayToObject requires an object with keys 'k' and 'v'. Found: \(element.shellDescription)")
                }
                key = k
                value = v
            default:
                throw .location(
                    40398, "Unrecognised input type format for $arrayToObject: \(element.typeName)")
            }
            guard case .string(let name) = key else {
                throw .location(
                    40395,
                    "$arrayToObject requires an array of key-value pairs, where the key must be of type string. "
                        + "Found key type: \(key.typeName)")
            }
            guard !name.utf8.contains(0) else {
                throw .location(4_940_400, "Key field cannot contain an embedded null byte")
            }
            output[name] = value
        }
        return .document(output)
    }
}
