import BSON

/// One role of a collection's rules, as App Services defines it: when it applies (`apply_when`), which documents
/// it reaches (`document_filters`), and what it permits on the whole document and on each field.
package struct DataAccessRole: Sendable, Equatable {
    var name: String
    /// An expression of the request (and perhaps the document); empty applies always.
    var applyWhen: BSONDocument = [:]
    /// Queries a document must match to be read, or written, under this role.
    var readFilter: BSONDocument?
    var writeFilter: BSONDocument?
    var read: RuleExpression?
    var write: RuleExpression?
    var insert: RuleExpression = .always(false)
    var delete: RuleExpression = .always(false)
    var search: RuleExpression = .always(false)
    var fields: [String: FieldRule] = [:]
    var additionalFields: FieldRule = .closed

    /// Whether `apply_when` reads the document, so that the role is chosen document by document.
    var appliesPerDocument: Bool { RuleExpression.readsDocument(applyWhen) }

    /// Whether every field of every document this role reaches is readable without looking at the document.
    var readsWholeDocuments: Bool { read == .always(true) || write == .always(true) }

    /// Every query the role holds, for what its rules read.
    var expressions: [BSONDocument] {
        var all = [applyWhen] + [readFilter, writeFilter].compactMap { $0 }
        func add(_ expression: RuleExpression?) {
            if case .condition(let query)? = expression { all.append(query) }
        }
        func add(_ field: FieldRule) {
            add(field.read)
            add(field.write)
            field.fields.values.forEach(add)
        }
        [read, write, insert, delete, search].forEach(add)
        fields.values.forEach(add)
        add(additionalFields)
        return all
    }
}
