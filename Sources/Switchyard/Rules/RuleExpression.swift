import BSON

/// A permission as App Services writes it in a role (`read`, `write`, `insert`, `delete`, `search`, a field's
/// `read`/`write`): `true`, `false`, or an expression evaluated against the request and the document, such as
/// `{"owner_id": "%%user.id"}` or `{"%%user.custom_data.isAdmin": true}`. App Services' `%` operators (`%and`,
/// `%in`, `%exists`, …) are held as the matcher's `$` operators.
package enum RuleExpression: Sendable, Equatable {
    case always(Bool)
    case condition(BSONDocument)

    /// Whether the expression reads the document (its fields, `%%root`, `%%prevRoot`, `%%this`, `%%prev`) rather
    /// than only the request, so that it must be evaluated document by document.
    var readsDocument: Bool {
        guard case .condition(let query) = self else { return false }
        return Self.readsDocument(query)
    }

    static let documentRoots: Set<String> = ["%%root", "%%prevRoot", "%%this", "%%prev"]

    static func readsDocument(_ query: BSONDocument) -> Bool {
        for (key, value) in query {
            if key.hasPrefix("$") {
                if readsDocument(value, asQuery: key == "$and" || key == "$or" || key == "$nor") { return true }
            } else if !key.hasPrefix("%%") || documentRoots.contains(root(of: key)) {
                return true
            } else if readsDocument(value, asQuery: false) {
                return true
            }
        }
        return false
    }

    private static func readsDocument(_ value: BSON, asQuery: Bool) -> Bool {
        switch value {
        case .string(let text): return text.hasPrefix("%%") && documentRoots.contains(root(of: text))
        case .array(let items): return items.contains { readsDocument($0, asQuery: asQuery) }
        case .document(let document):
            if asQuery { return readsDocument(document) }
            return document.contains { readsDocument($0.value, asQuery: false) }
        default: return false
        }
    }

    static func root(of path: String) -> String {
        path.split(separator: ".", maxSplits: 1).first.map(String.init) ?? path
    }
}
