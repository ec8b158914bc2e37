import BSON

/// `$skip: n`.
struct SkipStage: AggregationStage {
    let count: Int

    init(_ spec: BSON) throws(StoreError) {
        guard spec.isNumber, let n = spec.int64Value, n >= 0 else {
            throw .location(
                5_107_200,
                "invalid argument to $skip stage: Expected a non-negative number in: $skip: \(spec.shellDescription)")
        }
        count = Int(clamping: n)
    }

    func run(_ input: [BSONDocument], context: StageContext) throws(StoreError) -> [BSONDocument] {
        Array(input.dropFirst(count))
    }
}
