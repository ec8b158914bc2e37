import BSON

/// `$count: "name"`: one document `{name: n}`, or none for no input.
struct CountStage: AggregationStage {
    let field: String

    init(_ spec: BSON) throws(StoreError) {
        guard case .string(let name) = spec, !name.isEmpty else {
            throw .location(40156, "the count field must be a non-empty string")
        }
        guard !name.hasPrefix("$") else { throw .location(40158, "the count field cannot be a $-prefixed path") }
        guard !name.contains(".") else { throw .location(40160, "the count field cannot contain '.'") }
        field = name
    }

    func run(_ input: [BSONDocument], context: StageContext) throws(StoreError) -> [BSONDocument] {
        guard !input.isEmpty else { return [] }
        let count: BSON = Int32(exactly: input.count).map { .int32($0) } ?? .int64(Int64(input.count))
        return [[field: count]]
    }
}
