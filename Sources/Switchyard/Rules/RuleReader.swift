import BSON

/// Reads data access rules from `YAMLNode`s, whether they came from `rules.json` and `default_rule.json`
/// (through `JSONText`) or from `triggers.yaml`'s `rules:` section, reporting every problem with its position.
/// The keys are App Services' own (`apply_when`, `document_filters`, `additional_fields`, …) in both forms.
struct RuleReader {
    let scalars: ScalarRules

    static let ruleKeys = ["_id", "database", "collection", "roles", "filters"]
    static let defaultRuleKeys = ["_id", "roles", "filters"]
    static let roleKeys = [
        "_id", "name", "apply_when", "document_filters", "read", "write", "insert", "delete", "search", "fields",
        "additional_fields",
    ]
    static let documentFilterKeys = ["read", "write"]
    static let fieldKeys = ["read", "write", "fields"]
    static let filterKeys = ["_id", "name", "apply_when", "query", "projection"]

    /// App Services' expression operators, as the matcher's.
    static let operators: [String: String] = [
        "%and": "$and", "%or": "$or", "%nor": "$nor", "%not": "$not", "%eq": "$eq", "%ne": "$ne", "%in": "$in",
        "%nin": "$nin", "%exists": "$exists", "%gt": "$gt", "%gte": "$gte", "%lt": "$lt", "%lte": "$lte",
        "%all": "$all", "%elemMatch": "$elemMatch", "%size": "$size", "%type": "$type", "%regex": "$regex",
    ]
    /// The expansions a rule may name.
    static let expansionRoots: Set<String> = [
        "%%user", "%%root", "%%prevRoot", "%%this", "%%prev", "%%true", "%%false", "%%values", "%%environment",
    ]

    /// `rules.json`: its namespace and rules; `expected` is the namespace its directory names.
    func readRuleFile(_ node: YAMLNode, expected: Namespace?, reader: inout ConfigurationReader)
        -> (namespace: Namespace, rules: CollectionRules)?
    {
        guard let pairs = reader.mapping(node, "a rule") else { return nil }
        reader.rejectUnknownKeys(pairs, known: Self.ruleKeys)
        var names: [String: String] = [:]
        for key in ["database", "collection"] {
            if let value = pairs[key] {
                names[key] = reader.string(value, "'\(key)'")
            } else if let expected {
                names[key] = key == "database" ? expected.database : expected.collection
            } else {
                reader.error("missing required key '\(key)' in a rule", at: node)
            }
        }
        // Read even without its namespace, so that every problem of the file is reported at once.
        let rules = readRules(pairs, at: node, reader: &reader)
        guard let database = names["database"], let collection = names["collection"], let rules else { return nil }
        let namespace = Namespace(database: database, collection: collection)
        if let expected, expected != namespace, let at = pairs["database"] ?? pairs["collection"] {
            reader.error(
                "this rule names \(namespace) but its directory is \(expected.database)/\(expected.collection)", at: at)
        }
        return (namespace, rules)
    }

    /// `default_rule.json`: the rules of every collection without its own.
    func readDefaultRule(_ node: YAMLNode, reader: inout ConfigurationReader) -> CollectionRules? {
        guard let pairs = reader.mapping(node, "a default rule") else { return nil }
        reader.rejectUnknownKeys(pairs, known: Self.defaultRuleKeys)
        return readRules(pairs, at: node, reader: &reader)
    }

    func readRules(
        _ pairs: [(key: String, keyNode: YAMLNode, value: YAMLNode)], at node: YAMLNode,
        reader: inout ConfigurationReader
    ) -> CollectionRules? {
        var rules = CollectionRules(roles: [])
        if let rolesNode = pairs["roles"], !rolesNode.isNull, let items = reader.sequence(rolesNode, "'roles'") {
            var seen: Set<String> = []
            for item in items {
                guard let role = readRole(item, reader: &reader) else { continue }
                if !seen.insert(role.name).inserted {
                    reader.error("duplicate role name '\(role.name)'", at: item)
                }
                rules.roles.append(role)
            }
        }
        if let filtersNode = pairs["filters"], !filtersNode.isNull,
            let items = reader.sequence(filtersNode, "'filters'")
        {
            rules.filters = items.compactMap { readFilter($0, reader: &reader) }
        }
        return rules
    }

    func readRole(_ node: YAMLNode, reader: inout ConfigurationReader) -> DataAccessRole? {
        guard let pairs = reader.mapping(node, "a role") else { return nil }
        reader.rejectUnknownKeys(pairs, known: Self.roleKeys)
        guard let nameNode = pairs["name"] else {
            reader.error("missing required key 'name' in a role", at: node)
            return nil
        }
        guard let name = reader.string(nameNode, "a role's 'name'") else { return nil }
        var role = DataAccessRole(name: name)
        if let v = pairs["apply_when"], !v.isNull, let query = expression(v, "'apply_when'", reader: &reader) {
            role.applyWhen = query
        }
        if let v = pairs["document_filters"], !v.isNull, let filters = reader.mapping(v, "'document_filters'") {
            reader.rejectUnknownKeys(filters, known: Self.documentFilterKeys)
            if let f = filters["read"], !f.isNull { role.readFilter = expression(f, "'read'", reader: &reader) }
            if let f = filters["write"], !f.isNull { role.writeFilter = expression(f, "'write'", reader: &reader) }
        }
        role.read = pairs["read"].flatMap { permission($0, "'read'", reader: &reader) }
        role.write = pairs["write"].flatMap { permission($0, "'write'", reader: &reader) }
        for (key, path) in [("insert", \DataAccessRole.insert), ("delete", \.delete), ("search", \.search)] {
            if let v = pairs[key], let p = permission(v, "'\(key)'", reader: &reader) { role[keyPath: path] = p }
        }
        if let v = pairs["fields"], !v.isNull { role.fields = fields(v, reader: &reader) }
        if let v = pairs["additional_fields"], !v.isNull, let field = fieldRule(v, nested: false, reader: &reader) {
            role.additionalFields = field
        }
        return role
    }

    private func readFilter(_ node: YAMLNode, reader: inout ConfigurationReader) -> RuleFilter? {
        guard let pairs = reader.mapping(node, "a filter") else { return nil }
        reader.rejectUnknownKeys(pairs, known: Self.filterKeys)
        let name = pairs["name"].flatMap { reader.string($0, "a filter's 'name'") } ?? ""
        let applyWhen = pairs["apply_when"].flatMap { expression($0, "'apply_when'", reader: &reader) } ?? [:]
        let query = pairs["query"].flatMap { expression($0, "'query'", reader: &reader) } ?? [:]
        if let projection = pairs["projection"], !projection.isNull,
            case .mapping(let entries) = projection.value, !entries.isEmpty
        {
            reader.error(
                "filter '\(name)': a projection is not supported (use the role's 'fields' to hide fields)",
                at: projection)
        }
        return RuleFilter(name: name, applyWhen: applyWhen, query: query)
    }

    private func fields(_ node: YAMLNode, reader: inout ConfigurationReader) -> [String: FieldRule] {
        guard let entries = reader.mapping(node, "'fields'") else { return [:] }
        var fields: [String: FieldRule] = [:]
        for entry in entries {
            if let field = fieldRule(entry.value, nested: true, reader: &reader) { fields[entry.key] = field }
        }
        return fields
    }

    private func fieldRule(_ node: YAMLNode, nested: Bool, reader: inout ConfigurationReader) -> FieldRule? {
        guard let pairs = reader.mapping(node, nested ? "a field's permissions" : "'additional_fields'") else {
            return nil
        }
        reader.rejectUnknownKeys(pairs, known: nested ? Self.fieldKeys : Self.documentFilterKeys)
        var field = FieldRule()
        field.read = pairs["read"].flatMap { permission($0, "'read'", reader: &reader) }
        field.write = pairs["write"].flatMap { permission($0, "'write'", reader: &reader) }
        if nested, let v = pairs["fields"], !v.isNull { field.fields = fields(v, reader: &reader) }
        return field
    }

    /// `true`, `false` or an expression.
    private func permission(_ node: YAMLNode, _ what: String, reader: inout ConfigurationReader) -> RuleExpression? {
        if case .mapping = node.value {
            return expression(node, what, reader: &reader).map { .condition($0) }
        }
        return reader.bool(node, "\(what) (true, false or an expression)").map { .always($0) }
    }

    /// A query with App Services' `%` operators and `%%` expansions, checked and held with the matcher's
    /// operators.
    func expression(_ node: YAMLNode, _ what: String, reader: inout ConfigurationReader) -> BSONDocument? {
        guard case .mapping = node.value else {
            reader.error("\(what) must be an expression (a mapping)", at: node)
            return nil
        }
        let before = reader.errors.count
        check(node, reader: &reader, depth: 0)
        guard reader.errors.count == before, let document = reader.document(node, rules: scalars) else { return nil }
        return Self.translate(document)
    }

    /// Reports unknown `%` operators and unknown `%%` expansions where they are written.
    private func check(_ node: YAMLNode, reader: inout ConfigurationReader, depth: Int) {
        guard depth < 100 else { return }
        switch node.value {
        case .scalar(let text, _):
            checkExpansion(text, at: node, reader: &reader)
        case .sequence(let items):
            for item in items { check(item, reader: &reader, depth: depth + 1) }
        case .mapping(let pairs):
            for pair in pairs {
                if let key = pair.key.scalar {
                    if key.hasPrefix("%%") {
                        checkExpansion(key, at: pair.key, reader: &reader)
                    } else if key.hasPrefix("%") {
                        checkOperator(key, at: pair.key, reader: &reader)
                    }
                }
                check(pair.value, reader: &reader, depth: depth + 1)
            }
        }
    }

    private func checkOperator(_ key: String, at node: YAMLNode, reader: inout ConfigurationReader) {
        guard Self.operators[key] == nil else { return }
        if key == "%function" {
            reader.error(
                "'%function' is not supported: Switchyard runs no JavaScript (decide with the fields, %%user and %%root instead)",
                at: node)
        } else {
            reader.error(
                "unknown operator '\(key)'\(ClosestMatch.hint(for: key, among: Self.operators.keys.sorted()))",
                at: node)
        }
    }

    private func checkExpansion(_ text: String, at node: YAMLNode, reader: inout ConfigurationReader) {
        guard text.hasPrefix("%%") else { return }
        let root = RuleExpression.root(of: text)
        guard !Self.expansionRoots.contains(root) else { return }
        reader.error(
            "unknown expansion '\(root)'\(ClosestMatch.hint(for: root, among: Self.expansionRoots.sorted()))", at: node)
    }

    /// `%` operators as `$` operators, everywhere in the query.
    static func translate(_ document: BSONDocument) -> BSONDocument {
        BSONDocument(document.map { key, value in (operators[key] ?? key, translate(value)) })
    }

    private static func translate(_ value: BSON) -> BSON {
        switch value {
        case .document(let document): return .document(translate(document))
        case .array(let items): return .array(items.map(translate))
        default: return value
        }
    }
}

extension RuleReader {
    static let sectionKeys = ["default", "collections"]
    static let collectionKeys = ["database", "collection", "roles", "filters", "schema"]

    /// `triggers.yaml`'s `rules:`: `default:` (a default rule) and `collections:` (a list of `{database,
    /// collection, roles, filters, schema}`), in App Services' own terms.
    func readSection(_ node: YAMLNode, reader: inout ConfigurationReader) -> DataAccessRules {
        var rules = DataAccessRules()
        guard let pairs = reader.mapping(node, "'rules'") else { return rules }
        reader.rejectUnknownKeys(pairs, known: Self.sectionKeys)
        if let v = pairs["default"], !v.isNull { rules.defaultRule = readDefaultRule(v, reader: &reader) }
        if let v = pairs["collections"], !v.isNull, let items = reader.sequence(v, "'collections'") {
            var first: [Namespace: SourceLocation] = [:]
            for item in items {
                guard let entry = reader.mapping(item, "a collection's rules") else { continue }
                reader.rejectUnknownKeys(entry, known: Self.collectionKeys)
                // The rule's own keys, read as a `rules.json` is (the others were reported just now).
                var ruleNode = item
                ruleNode.value = .mapping(
                    entry.filter { Self.ruleKeys.contains($0.key) }.map { (key: $0.keyNode, value: $0.value) })
                guard let (namespace, collectionRules) = readRuleFile(ruleNode, expected: nil, reader: &reader)
                else { continue }
                if let earlier = first[namespace] {
                    reader.error(
                        "duplicate rules for \(namespace)", at: item,
                        notes: [reader.note("\(namespace) is first given rules here", at: earlier)])
                    continue
                }
                first[namespace] = item.location
                rules.collections[namespace] = collectionRules
                if let schemaNode = entry["schema"], !schemaNode.isNull,
                    let schema = DocumentSchema.read(schemaNode, scalars: scalars, reader: &reader)
                {
                    rules.schemas[namespace] = schema
                }
            }
        }
        return rules
    }
}
