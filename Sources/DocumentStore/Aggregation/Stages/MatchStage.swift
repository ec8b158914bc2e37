import BSON

/// `$match`. A top-level `$expr` is evaluated here, so that it sees the variables of an enclosing `$lookup`
/// (`{$expr: {$eq: ["$_id", "$$bookId"]}}`); the rest of the filter is a `QueryFilter`.
struct MatchStage: AggregationStage {
    let filter: QueryFilter?
    let expression: Expression?

    init(_ spec: BSON) throws(StoreError) {
        guard case .document(let document) = spec else {
            throw .location(15959, "the match filter must be an expression in an object")
        }
        var rest = document
        if let expr = rest.removeValue(forKey: "$expr") {
            expression = try Expression(expr)
        } else {
            expression = nil
        }
        filter = rest.isEmpty && expression != nil ? nil : try QueryFilter(rest)
    }

    func run(_ input: [BSONDocument], context: StageContext) throws(StoreError) -> [BSONDocument] {
        var output: [BSONDocument] = []
        for document in input {
            try context.deadline?.check()
            if let filter, try filter.evaluate(document) == nil { continue }
            if let expression, !Expression.isTrue(try expression.evaluate(in: context.scope(for: document))) {
                continue
            }
            output.append(document)
        }
        return output
    }
}
