import BSON
import DocumentStore

/// A function's `canEvaluate` rule: a query over the call, evaluated with the store's query matcher against
/// `{"%%user": {id, type, data, custom_data, identities}, "%%request": {…}, "%%args": [...],
/// "%%values": {…}, "%%environment": {tag, values}}`. Field paths such as `%%user.custom_data.role` read that
/// document as they are; values that are expansions (`"%%user.id"`, `"%%args.0"`, `"%%true"`) are replaced
/// by what they name first, so `{"%%args.0": "%%user.id"}` compares two parts of the call.
struct CanEvaluateRule {
    let rule: BSONDocument

    static let roots: Set<String> = ["%%user", "%%request", "%%args", "%%values", "%%environment"]

    /// Whether the call may go ahead; a rule that is not a valid query throws the store's error.
    func allows(_ call: BSONDocument) throws(StoreError) -> Bool {
        guard !rule.isEmpty else { return true }
        let filter = try QueryFilter(Self.expand(rule, in: call, depth: 0))
        return try filter.evaluate(call) != nil
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

    /// Nesting beyond this is left as it is (a rule is configuration, but still never recursed without end).
    private static let maximumDepth = 100

    private static func expand(_ document: BSONDocument, in call: BSONDocument, depth: Int) -> BSONDocument {
        BSONDocument(document.map { ($0.key, expand($0.value, in: call, depth: depth + 1)) })
    }

    private static func expand(_ value: BSON, in call: BSONDocument, depth: Int) -> BSON {
        guard depth < maximumDepth else { return value }
        switch value {
        case .string(let text) where text.hasPrefix("%%"):
            if text == "%%true" { return .bool(true) }
            if text == "%%false" { return .bool(false) }
            let root = text.split(separator: ".", maxSplits: 1).first.map(String.init) ?? text
            guard roots.contains(root) else { return value }
            return call.value(atPath: text) ?? .null
        case .document(let document):
            return .document(expand(document, in: call, depth: depth))
        case .array(let items):
            return .array(items.map { expand($0, in: call, depth: depth + 1) })
        default:
            return value
        }
    }
}
