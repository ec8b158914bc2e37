import BSON

/// Expands one rule (a query whose values may be expansions such as `"%%user.id"`, `"%%root.owner"` or
/// `"%%true"`) against the values its expansions name, noting whether an expansion brought a pattern into a set
/// operator. Shared by functions' `canEvaluate` rules and data access rules, so both treat what a caller sends the
/// same way: an expanded value is a value, never part of the query. Where a field is compared with an expansion,
/// the comparison is an `$eq`; a regex brought by an expansion into `$in`, `$nin` or `$all` (where the matcher
/// would match it as a pattern) sets `broughtPattern`, and the rule must then deny.
struct RuleExpansion {
    /// The document the expansions read: each root (`%%user`, `%%args`, …) is a key of it.
    let values: BSONDocument
    /// The expansion roots this rule may name; any other `%%` string is a literal.
    let roots: Set<String>
    private(set) var broughtPattern = false

    /// Nesting beyond this is left as it is (a rule is configuration, but still never recursed without end).
    private static let maximumDepth = 100
    /// The operators whose array operand the matcher reads as patterns where it holds regexes.
    private static let setOperators: Set<String> = ["$in", "$nin", "$all"]
    /// The operators whose operand is a query of its own.
    private static let logicalOperators: Set<String> = ["$and", "$or", "$nor"]

    init(values: BSONDocument, roots: Set<String>) {
        self.values = values
        self.roots = roots
    }

    /// The rule as a query of the store's matcher, its expansions replaced.
    mutating func query(_ rule: BSONDocument) -> BSONDocument {
        filter(rule, depth: 0)
    }

    /// A query document: field paths and top-level operators.
    private mutating func filter(_ document: BSONDocument, depth: Int) -> BSONDocument {
        guard depth < Self.maximumDepth else { return document }
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

    /// What a field is compared with: an expansion is compared by `$eq`; an operator document has its operands
    /// expanded; anything else is a literal with its expansions replaced.
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
        guard depth < Self.maximumDepth else { return value }
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

    /// What an expansion string names (`.null` when the values have nothing there); nil for any other value.
    private func expansion(_ value: BSON) -> BSON? {
        guard case .string(let text) = value, text.hasPrefix("%%") else { return nil }
        if text == "%%true" { return .bool(true) }
        if text == "%%false" { return .bool(false) }
        let root = text.split(separator: ".", maxSplits: 1).first.map(String.init) ?? text
        guard roots.contains(root) else { return nil }
        return values.value(atPath: text) ?? .null
    }
}
