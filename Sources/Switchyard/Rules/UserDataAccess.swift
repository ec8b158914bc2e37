import BSON
import DocumentStore
import Synchronization

/// An app's data access rules as one user's requests meet them: the `DocumentAccess` a collection carries when a
/// client or a function running as the user reaches the store.
///
/// For each collection the role is chosen as App Services chooses it: the roles in order, the first whose
/// `apply_when` holds wins. While no role before the winner reads the document, the choice is made once for the
/// request, and its document filter goes into the query, so a find by `_id` stays one lookup; otherwise each
/// document gets its own role as it is read or written.
package final class UserDataAccess: DocumentAccess {
    let rules: DataAccessRules
    /// `%%user`, `%%values` and `%%environment`: what every expression of this request may name.
    let request: BSONDocument
    private let decisions = Mutex<[Namespace: Decision]>([:])

    /// A query no document matches: what a user without a role reads.
    static let nothing: BSONDocument = ["_id": ["$in": []]]

    package init(rules: DataAccessRules, user: FunctionUser, values: BSONDocument = [:], environment: String = "") {
        self.rules = rules
        request = [
            "%%user": .document(user.document), "%%values": .document(values),
            "%%environment": ["tag": .string(environment), "values": .document(values)],
        ]
    }

    /// How the role of a collection's documents is chosen for this request.
    enum Decision: Sendable {
        /// Nothing governs the collection: App Services refuses the request.
        case noRule
        /// One role (or none) for every document; `restriction` is the filters that apply, ANDed.
        case request(DataAccessRole?, restriction: BSONDocument?)
        /// Each document's role is chosen among these as it is met.
        case perDocument([DataAccessRole], restriction: BSONDocument?)
    }

    func decision(_ namespace: Namespace) -> Decision {
        if let kept = decisions.withLock({ $0[namespace] }) { return kept }
        let made = decide(namespace)
        decisions.withLock { $0[namespace] = made }
        return made
    }

    private func decide(_ namespace: Namespace) -> Decision {
        guard let rules = rules.rules(for: namespace) else { return .noRule }
        let queries = rules.filters.filter { holds($0.applyWhen, in: request) }.map { expanded($0.query) }
        let restriction: BSONDocument? =
            queries.isEmpty ? nil : queries.count == 1 ? queries[0] : ["$and": .array(queries.map(BSON.document))]
        for (index, role) in rules.roles.enumerated() {
            if role.appliesPerDocument { return .perDocument(Array(rules.roles[index...]), restriction: restriction) }
            if holds(role.applyWhen, in: request) { return .request(role, restriction: restriction) }
        }
        return .request(nil, restriction: restriction)
    }

    // MARK: DocumentAccess

    package func readFilter(_ namespace: Namespace) throws(StoreError) -> BSONDocument? {
        switch decision(namespace) {
        case .noRule: throw Self.noRule(namespace)
        case .request(nil, _): return Self.nothing
        case .request(let role?, let restriction):
            guard role.mayRead else { return Self.nothing }
            var filter = role.readFilter.map(expanded)
            if let read = filter, let write = role.writeFilter.map(expanded), role.mayWrite {
                filter = ["$or": [.document(read), .document(write)]]
            }
            return Self.both(restriction, filter)
        case .perDocument(_, let restriction): return restriction
        }
    }

    package func writeFilter(_ namespace: Namespace) throws(StoreError) -> BSONDocument? {
        switch decision(namespace) {
        case .noRule: throw Self.noRule(namespace)
        case .request(nil, let restriction): return restriction
        case .request(let role?, let restriction): return Self.both(restriction, role.writeFilter.map(expanded))
        case .perDocument(_, let restriction): return restriction
        }
    }

    package func redaction(_ namespace: Namespace) -> DocumentRedaction {
        switch decision(namespace) {
        case .noRule, .request(nil, _): return .none
        case .request(let role?, _): return role.readsWholeDocuments ? .none : .documents
        case .perDocument: return .documents
        }
    }

    package func redact(_ document: BSONDocument, in namespace: Namespace) -> BSONDocument? {
        let subject = self.subject(document, before: nil)
        guard let role = role(for: subject, document: document, namespace: namespace),
            role.readFilter.map({ matches(document, expanded($0)) }) ?? true
                || (role.mayWrite && role.writeFilter.map({ matches(document, expanded($0)) }) ?? false)
        else { return nil }
        if evaluate(role.read, subject) || evaluate(role.write, subject) { return document }
        var visible = BSONDocument()
        var hasField = false
        for (key, value) in document {
            if key == "_id" {
                visible.append(key, value)
                continue
            }
            let rule = role.fields[key] ?? role.additionalFields
            if let readable = readable(value, rule: rule, subject: subject) {
                visible.append(key, readable)
                hasField = true
            }
        }
        return hasField ? visible : nil
    }

    package func authorizeWrite(_ namespace: Namespace, before: BSONDocument?, after: BSONDocument?)
        throws(StoreError)
    {
        let operation = before == nil ? "insert" : after == nil ? "delete" : "update"
        guard let document = after ?? before else { return }
        if case .noRule = decision(namespace) { throw Self.noRule(namespace) }
        let subject = self.subject(document, before: before)
        guard let role = role(for: subject, document: document, namespace: namespace) else {
            throw Self.notPermitted(operation, namespace)
        }
        if let restriction = restrictionOf(namespace),
            ![before, after].allSatisfy({ $0.map { matches($0, restriction) } ?? true })
        {
            throw Self.notPermitted(operation, namespace)
        }
        if let filter = role.writeFilter.map(expanded),
            ![before, after].allSatisfy({ $0.map { matches($0, filter) } ?? true })
        {
            throw Self.notPermitted(operation, namespace)
        }
        let permitted: Bool
        switch (before, after) {
        case (nil, let inserted?):
            permitted = evaluate(role.insert, subject) && writable(nil, inserted, role: role, subject: subject)
        case (.some, nil):
            permitted = evaluate(role.delete, subject)
        case (let old?, let new?):
            permitted = writable(old, new, role: role, subject: subject)
        default:
            permitted = false
        }
        guard permitted else { throw Self.notPermitted(operation, namespace) }
        if let after, let schema = rules.schemas[namespace],
            let problem = schema.violation(of: .document(after), at: "")
        {
            throw StoreError(code: .documentValidationFailure, message: "failed schema validation: \(problem)")
        }
    }

    // MARK: Beyond the store

    /// Whether the request may run Atlas Search (`$search`) on the collection.
    package func permitsSearch(_ namespace: Namespace) -> Bool {
        guard case .request(let role?, _) = decision(namespace) else { return false }
        return evaluate(role.search, request)
    }

    /// Whether the namespace has rules at all (App Services refuses requests to one without).
    package func governs(_ namespace: Namespace) -> Bool {
        if case .noRule = decision(namespace) { return false }
        return true
    }

    /// What of a change event this user may see (its documents redacted as reads are), or nil when they may not
    /// see it: the same decision a read of the changed document makes.
    package func permittedChange(_ event: BSONDocument) -> BSONDocument? {
        guard let ns = event["ns"]?.documentValue, let database = ns["db"]?.stringValue,
            let collection = ns["coll"]?.stringValue
        else { return nil }
        let namespace = Namespace(database: database, collection: collection)
        guard governs(namespace) else { return nil }
        var event = event
        if let full = event["fullDocument"]?.documentValue {
            guard let visible = redact(full, in: namespace) else { return nil }
            event["fullDocument"] = .document(visible)
            if var description = event["updateDescription"]?.documentValue,
                let updated = description["updatedFields"]?.documentValue, visible != full
            {
                let shown = updated.filter { key, _ in
                    visible[String(key.split(separator: ".").first ?? "")] != nil
                }
                description["updatedFields"] = .document(BSONDocument(shown.map { ($0.key, $0.value) }))
                event["updateDescription"] = .document(description)
            }
        } else {
            // Without the document only a role that reads every document of the collection may see the event.
            guard case .request(let role?, nil) = decision(namespace), role.readsWholeDocuments,
                role.readFilter == nil
            else { return nil }
        }
        if let before = event["fullDocumentBeforeChange"]?.documentValue {
            event["fullDocumentBeforeChange"] = redact(before, in: namespace).map(BSON.document) ?? .null
        }
        return event
    }

    // MARK: Evaluation

    /// The role of one document: the request's, or the first whose `apply_when` holds for it.
    private func role(for subject: BSONDocument, document: BSONDocument, namespace: Namespace) -> DataAccessRole? {
        switch decision(namespace) {
        case .noRule: return nil
        case .request(let role, _): return role
        case .perDocument(let roles, _):
            return roles.first { holds($0.applyWhen, in: $0.appliesPerDocument ? subject : request) }
        }
    }

    private func restrictionOf(_ namespace: Namespace) -> BSONDocument? {
        switch decision(namespace) {
        case .noRule: return nil
        case .request(_, let restriction), .perDocument(_, let restriction): return restriction
        }
    }

    /// What an expression about one document is evaluated against: the document's fields, and the request's
    /// expansions with `%%root` (the document as it is, or will be) and `%%prevRoot` (before a write).
    private func subject(_ document: BSONDocument, before: BSONDocument?) -> BSONDocument {
        var subject = document
        for (key, value) in request { subject[key] = value }
        subject["%%root"] = .document(document)
        subject["%%this"] = .document(document)
        if let before {
            subject["%%prevRoot"] = .document(before)
            subject["%%prev"] = .document(before)
        }
        return subject
    }

    /// The field's value as far as it is readable; nil when none of it is.
    private func readable(_ value: BSON, rule: FieldRule, subject: BSONDocument) -> BSON? {
        var subject = subject
        subject["%%this"] = value
        let whole = evaluate(rule.read, subject) || evaluate(rule.write, subject)
        guard !rule.fields.isEmpty, case .document(let document) = value else { return whole ? value : nil }
        var visible = BSONDocument()
        for (key, inner) in document {
            // An embedded field reads as its parent does unless its own rule says whether it may be read.
            var innerRule = rule.fields[key] ?? FieldRule()
            if innerRule.read == nil, whole { innerRule.read = .always(true) }
            if let shown = readable(inner, rule: innerRule, subject: subject) { visible.append(key, shown) }
        }
        return visible.isEmpty && !whole ? nil : .document(visible)
    }

    /// Whether every field that differs between `before` (nil for an insert: every field) and `after` is writable.
    private func writable(_ before: BSONDocument?, _ after: BSONDocument, role: DataAccessRole, subject: BSONDocument)
        -> Bool
    {
        if evaluate(role.write, subject) { return true }
        return changed(before, after, fields: role.fields, other: role.additionalFields, subject: subject)
    }

    private func changed(
        _ before: BSONDocument?, _ after: BSONDocument, fields: [String: FieldRule], other: FieldRule,
        subject: BSONDocument
    ) -> Bool {
        var keys = after.keys
        for key in before?.keys ?? [] where after[key] == nil { keys.append(key) }
        // `_id` is never changed by a write, and an insert's `_id` is the document's own.
        for key in keys where key != "_id" {
            let (old, new) = (before?[key], after[key])
            guard old != new || before == nil else { continue }
            let rule = fields[key] ?? other
            var fieldSubject = subject
            fieldSubject["%%this"] = new ?? .null
            fieldSubject["%%prev"] = old ?? .null
            if evaluate(rule.write, fieldSubject) { continue }
            // An embedded document whose own fields have rules is writable where each changed field is.
            guard !rule.fields.isEmpty, case .document(let newDocument)? = new else { return false }
            let oldDocument = old?.documentValue
            if old != nil && oldDocument == nil { return false }
            guard changed(oldDocument, newDocument, fields: rule.fields, other: .closed, subject: subject) else {
                return false
            }
        }
        return true
    }

    private func evaluate(_ expression: RuleExpression?, _ subject: BSONDocument) -> Bool {
        switch expression {
        case nil: return false
        case .always(let value)?: return value
        case .condition(let query)?: return holds(query, in: subject)
        }
    }

    /// Whether a rule's query holds for `subject`; a query the matcher refuses holds for nothing.
    private func holds(_ query: BSONDocument, in subject: BSONDocument) -> Bool {
        guard !query.isEmpty else { return true }
        var expansion = RuleExpansion(values: subject, roots: RuleReader.expansionRoots)
        let expanded = expansion.query(query)
        guard !expansion.broughtPattern, let filter = try? QueryFilter(expanded) else { return false }
        return ((try? filter.evaluate(subject)) ?? nil) != nil
    }

    /// A document filter with the request's expansions replaced: a query of the documents alone. A field compared
    /// by `$eq` with a plain scalar (`{owner: {$eq: "u1"}}`, what `{owner: "%%user.id"}` becomes) is written as the
    /// plain equality it is, which the store's plan cache keeps, so a find by `_id` under it plans no more often
    /// than without it. Documents, arrays and regexes keep their `$eq`: written plainly they would be operators,
    /// or a pattern.
    private func expanded(_ query: BSONDocument) -> BSONDocument {
        var expansion = RuleExpansion(values: request, roots: RuleReader.expansionRoots)
        let expanded = expansion.query(query)
        guard !expansion.broughtPattern else { return Self.nothing }
        var plain = BSONDocument()
        for (key, value) in expanded {
            if !key.hasPrefix("$"), case .document(let condition) = value, condition.count == 1,
                let operand = condition["$eq"], Self.isPlainScalar(operand)
            {
                plain.append(key, operand)
            } else {
                plain.append(key, value)
            }
        }
        return plain
    }

    private static func isPlainScalar(_ value: BSON) -> Bool {
        switch value {
        case .string, .int32, .int64, .double, .bool, .objectId, .datetime: true
        default: false
        }
    }

    private func matches(_ document: BSONDocument, _ query: BSONDocument) -> Bool {
        guard let filter = try? QueryFilter(query) else { return false }
        return ((try? filter.evaluate(document)) ?? nil) != nil
    }

    private static func both(_ first: BSONDocument?, _ second: BSONDocument?) -> BSONDocument? {
        guard let first else { return second }
        guard let second else { return first }
        return ["$and": [.document(first), .document(second)]]
    }

    static func noRule(_ namespace: Namespace) -> StoreError {
        StoreError(code: .unauthorized, message: "no rule exists for namespace '\(namespace)'")
    }

    static func notPermitted(_ operation: String, _ namespace: Namespace) -> StoreError {
        StoreError(code: .unauthorized, message: "\(operation) not permitted on '\(namespace)'")
    }
}

extension DataAccessRole {
    /// Whether anything of a document could be readable under this role.
    var mayRead: Bool {
        mayWrite || read.isPossible || fields.values.contains { $0.mayRead } || additionalFields.mayRead
    }

    /// Whether anything of a document could be writable under this role.
    var mayWrite: Bool {
        write.isPossible || fields.values.contains { $0.write.isPossible } || additionalFields.write.isPossible
    }
}

extension FieldRule {
    var mayRead: Bool { read.isPossible || write.isPossible || fields.values.contains { $0.mayRead } }
}

extension Optional where Wrapped == RuleExpression {
    /// False only for a permission that can never hold.
    fileprivate var isPossible: Bool {
        switch self {
        case nil, .always(false)?: false
        default: true
        }
    }
}
