import BSON
import DocumentStore

/// A function's `canEvaluate` rule: a query over the call, evaluated with the store's query matcher against
/// `{"%%user": {id, type, data, custom_data, identities}, "%%request": {…}, "%%args": [...],
/// "%%values": {…}, "%%environment": {tag, values}}`. Field paths such as `%%user.custom_data.role` read that
/// document as they are; values that are expansions (`"%%user.id"`, `"%%args.0"`, `"%%true"`) are replaced
/// by what they name first, so `{"%%args.0": "%%user.id"}` compares two parts of the call.
///
/// An expanded value is a value, never part of the query: a caller choosing its arguments must not choose the
/// operators. Where a field is compared with an expansion (`{"%%user.id": "%%args.0"}`), the comparison is an
/// `$eq`, so an argument `{"$exists": true}` or a regular expression is compared as that document or that
/// regex, by equality. A regex brought by an expansion into `$in`, `$nin` or `$all` (where the matcher would
/// match it as a pattern) denies the call.
struct CanEvaluateRule {
    let rule: BSONDocument

    static let roots: Set<String> = ["%%user", "%%request", "%%args", "%%values", "%%environment"]

    /// Whether the call may go ahead; a rule that is not a valid query throws the store's error.
    func allows(_ call: BSONDocument) throws(StoreError) -> Bool {
        guard !rule.isEmpty else { return true }
        var expansion = RuleExpansion(values: call, roots: Self.roots)
        let query = expansion.query(rule)
        guard !expansion.broughtPattern else { return false }
        return try QueryFilter(query).evaluate(call) != nil
    }

    /// The document the rule is evaluated against. Secret values are left out of `%%values`.
    static func callDocument(
        user: FunctionUser, request: BSONDocument, arguments: [BSON], values: AppValues, environment: String
    ) -> BSONDocument {
        var plain = BSONDocument()
        for name in values.names {
            if case .plain(let value)? = values[name] { plain.append(name, value) }
        }
        return [
            "%%user": .document(user.document),
            "%%request": .document(request),
            "%%args": .array(arguments),
            "%%values": .document(plain),
            "%%environment": ["tag": .string(environment), "values": .document(plain)],
        ]
    }
}
