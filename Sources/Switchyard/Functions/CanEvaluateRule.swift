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
        var expansion = Expansion(call: call)
        let query = expansion.filter(rule, depth: 0)
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

    /// Nesting beyond this is left as it is (a rule is configuration, but still never recursed without end).
    private static let maximumDepth = 100

    /// Expands one rule against one call, noting whether an expansion brought a pattern into a set operator.
    private struct Expansion {
        let call: BSONDocument
        var broughtPattern = false

        /// The operators whose array operand the matcher reads as patterns where it holds regexes.
        private static let setOperators: Set<String> = ["$in", "$nin", "$all"]
        /// The operators whose operand is a query of its own.
        private static let logicalOperators: Set<String> = ["$and", "$or", "$nor"]

        init(call: BSONDocument) {
            self.call = call
        }

        /// A query document: field paths and top-level operators.
        mutating func filter(_ document: BSONDocument, depth: Int) -> BSONDocument {
            guard depth < maximumDepth else { return document }
            var expanded = BSONDocument()
            for (key, value) in document {
                if Self.logicalOperators.contains(key), case .array(let clauses) = value {
                    expanded.append(
                        key,
                        .array(
                            clauses.map { clause in
                                guard case .document(let clause) = clause else { return clause }
                                return .document(filter(clause, depth: depth + 1))
                            }))
                } else if key.hasPrefix("$") {
                    expanded.append(key, self.value(value, depth: depth + 1))
                } else {
                    expanded.append(key, condition(value, depth: depth + 1))
                }
            }
            return expanded
        }

        /// What a field is compared with: an expansion is compared by `$eq`; an operator document has its
        /// operands expanded; anything else is a literal with its expansions replaced.
        private mutating func condition(_ value: BSON, depth: Int) -> BSON {
            if let expanded = expansion(value) { return ["$eq": expanded] }
            guard case .document(let operators) = value, operators.keys.first?.hasPrefix("$") == true else {
                return self.value(value, depth: depth)
            }
            var expanded = BSONDocument()
            for (name, operand) in operators {
                switch name {
                case "$not", "$elemMatch":
                    guard case .document(let inner) = operand else {
                        expanded.append(name, self.value(operand, depth: depth + 1))
                        continue
                    }
                    let isOperators = inner.keys.first?.hasPrefix("$") == true
                    expanded.append(
                        name,
                        isOperators ? condition(operand, depth: depth + 1) : .document(filter(inner, depth: depth + 1)))
                case let name where Self.setOperators.contains(name):
                    let items = self.value(operand, depth: depth + 1)
                    if Self.holdsPattern(items, brought: operand) { broughtPattern = true }
                    expanded.append(name, items)
                default:
                    expanded.append(name, self.value(operand, depth: depth + 1))
                }
            }
            return .document(expanded)
        }

        /// Whether expanding `original` into `items` put a regex where the set operator reads patterns.
        private static func holdsPattern(_ items: BSON, brought original: BSON) -> Bool {
            guard case .array(let items) = items else { return false }
            let originals = original.arrayValue
            for (index, item) in items.enumerated() {
                guard case .regex = item else { continue }
                // A regex written in the rule itself is the rule author's pattern.
                if let originals, index < originals.count, case .regex = originals[index] { continue }
                return true
            }
            return false
        }

        /// A literal with every expansion inside it replaced by what it names.
        private func value(_ value: BSON, depth: Int) -> BSON {
            guard depth < maximumDepth else { return value }
            if let expanded = expansion(value) { return expanded }
            switch value {
            case .document(let document):
                return .document(BSONDocument(document.map { ($0.key, self.value($0.value, depth: depth + 1)) }))
            case .array(let items):
                return .array(items.map { self.value($0, depth: depth + 1) })
            default:
                return value
            }
        }

        /// What an expansion string names (`.null` when the call has nothing there); nil for any other value.
        private func expansion(_ value: BSON) -> BSON? {
            guard case .string(let text) = value, text.hasPrefix("%%") else { return nil }
            if text == "%%true" { return .bool(true) }
            if text == "%%false" { return .bool(false) }
            let root = text.split(separator: ".", maxSplits: 1).first.map(String.init) ?? text
            guard roots.contains(root) else { return nil }
            return call.value(atPath: text) ?? .null
        }
    }
}
