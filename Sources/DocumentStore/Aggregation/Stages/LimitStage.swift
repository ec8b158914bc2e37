import BSON

/// `$limit: n`, n positive.
struct LimitStage: AggregationStage {
    let count: Int

    init(_ spec: BSON) throws(StoreError) {
        guard spec.isNumber, let n = spec.int64Value else {
            throw .location(15957, "the limit must be specified as a number")
        }
        guard n > 0 else {
            throw .location(
                5_107_201,
                "invalid argument to $limit stage: Expected a positive number in: $limit: \(spec.shellDescription)")
        }
        count = Int(clamping: n)
    }

    func run(_ input: [BSONDocument], context: StageContext) throws(StoreError) -> [BSONDocument] {
        Array(input.prefix(count))
    }
}
