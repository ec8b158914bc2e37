import BSON

/// A compiled aggregation expression (`"$field"`, `{"$concat": […]}`, `{"$cond": …}`, literals): parsed and
/// checked once, then evaluated against any number of documents.
///
/// A field path that leads nowhere evaluates to *missing*, which is not null: `$project` and `$addFields`
/// omit a field whose expression is missing, `$ifNull` treats both alike, `$eq` does not.
package struct Expression: Sendable {
    let node: ExpressionNode

    package init(_ expression: BSON) throws(StoreError) {
        node = try ExpressionNode(parsing: expression, depth: 0)
    }

    /// Evaluates against `root` (`$$ROOT`, and what `$field` paths read) with `$$name` variables; missing
    /// reads as null.
    package func evaluate(_ root: BSONDocument, variables: [String: BSON] = [:]) throws(StoreError) -> BSON {
        try evaluateIfPresent(root, variables: variables) ?? .null
    }

    /// Evaluates like `evaluate`, but returns nil when the result is missing (`"$nope"`, `"$$REMOVE"`).
    package func evaluateIfPresent(_ root: BSONDocument, variables: [String: BSON] = [:]) throws(StoreError)
        -> BSON?
    {
        try node.evaluate(in: EvaluationScope(root: root, variables: variables))
    }

    func evaluate(in scope: EvaluationScope) throws(StoreError) -> BSON? {
        try node.evaluate(in: scope)
    }

    /// Truth as `$cond`, `$and`, `$filter` and `$expr` see it: false, null, undefined, missing and numeric
    /// zero are false; everything else (empty strings and arrays included) is true.
    package static func isTrue(_ value: BSON?) -> Bool {
        switch value {
        case nil, .null?, .undefined?: false
        case .bool(let b)?: b
        case .int32(let i)?: i != 0
        case .int64(let i)?: i != 0
        case .double(let d)?: d != 0
        case .decimal128(let d)?: d.doubleValue.map { $0 != 0 } ?? true
        default: true
        }
    }
}

/// What an expression sees while it runs: the document and the variables in scope.
struct EvaluationScope: Sendable {
    var root: BSONDocument
    var variables: [String: BSON]
}
