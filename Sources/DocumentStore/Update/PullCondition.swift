import BSON

/// Which elements `$pull` removes, decided as the server decides:
/// - a document of operators (`{$gte: 6}`, `{$in: [...]}`) is a condition on each element;
/// - any other document (`{score: 8}`) is a query that document elements must match (extra fields and
///   field order do not matter);
/// - any other value removes the elements equal to it by BSON comparison (`1` removes `1.0` too).
struct PullCondition: Sendable {
    private enum Test: Sendable {
        case equal(BSON)
        case elementCondition(QueryFilter)
        case documentQuery(QueryFilter)
    }

    private let test: Test

    /// The field name an element is wrapped in so that an operator condition can run as a query.
    private static let wrapperField = "element"

    init(_ argument: BSON) throws(StoreError) {
        guard case .document(let condition) = argument else {
            test = .equal(argument)
            return
        }
        if QueryFilter.isOperatorDocument(condition) {
            test = .elementCondition(try QueryFilter([Self.wrapperField: argument]))
        } else {
            test = .documentQuery(try QueryFilter(condition))
        }
    }

    func matches(_ element: BSON) throws(StoreError) -> Bool {
        switch test {
        case .equal(let value):
            return BSON.equivalent(value, element)
        case .elementCondition(let filter):
            return try filter.evaluate([Self.wrapperField: element]) != nil
        case .documentQuery(let filter):
            guard case .document(let document) = element else { return false }
            return try filter.evaluate(document) != nil
        }
    }
}
