import BSON

extension ExpressionOperator {
    /// `$eq` … `$cmp` by `BSON.compare`, where missing sorts with undefined (below null): `{$eq: ["$nope",
    /// null]}` is false, unlike the query `{nope: null}`. Also `$not`, the one boolean operator that
    /// evaluates eagerly.
    static let comparison: [ExpressionOperator] = [
        compare("$eq") { $0 == 0 },
        compare("$ne") { $0 != 0 },
        compare("$gt") { $0 > 0 },
        compare("$gte") { $0 >= 0 },
        compare("$lt") { $0 < 0 },
        compare("$lte") { $0 <= 0 },
        ExpressionOperator("$cmp", 2...2) { args in .int32(Int32(ComparisonOperators.compare(args[0], args[1]))) },
        ExpressionOperator("$not", 1...1) { args in .bool(!Expression.isTrue(args[0])) },
    ]

    private static func compare(_ name: String, _ test: @escaping @Sendable (Int) -> Bool) -> ExpressionOperator {
        ExpressionOperator(name, 2...2) { args in .bool(test(ComparisonOperators.compare(args[0], args[1]))) }
    }
}

enum ComparisonOperators {
    static func compare(_ lhs: BSON?, _ rhs: BSON?) -> Int {
        BSON.compare(lhs ?? .undefined, rhs ?? .undefined)
    }
}
