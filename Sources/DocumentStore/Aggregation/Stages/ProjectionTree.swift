import BSON

/// A `$project`, `$addFields` or `$unset` specification as a tree of field names, dotted paths split into
/// levels (`{"a.b": 1, "a.c": 1}` is one node `a` with two leaves).
struct ProjectionTree: Sendable {
    enum Field: Sendable {
        case include
        case exclude
        case computed(Expression)
        case nested(ProjectionTree)
    }

    private(set) var fields: [(name: String, field: Field)] = []
    private var positions: [String: Int] = [:]
    /// Whether any leaf below is computed: such a node creates fields even where the input has none.
    private(set) var containsComputed = false

    func field(named name: String) -> Field? {
        positions[name].map { fields[$0].field }
    }

    /// Adds a leaf at `path`; a path that is a prefix of another, or repeated, is a collision.
    mutating func insert(_ field: Field, at path: ArraySlice<String>, fullPath: String, stage: String)
        throws(StoreError)
    {
        guard let name = path.first else { return }
        let rest = path.dropFirst()
        if case .computed = field { containsComputed = true }
        if let position = positions[name] {
            guard !rest.isEmpty, case .nested(var subtree) = fields[position].field else {
                throw .location(31250, "Invalid \(stage) :: caused by :: Path collision at \(fullPath)")
            }
            fields[position].field = .include  // release the copy so the subtree is mutated uniquely
            defer { fields[position].field = .nested(subtree) }
            try subtree.insert(field, at: rest, fullPath: fullPath, stage: stage)
            return
        }
        if rest.isEmpty {
            positions[name] = fields.count
            fields.append((name, field))
            return
        }
        var subtree = ProjectionTree()
        try subtree.insert(field, at: rest, fullPath: fullPath, stage: stage)
        positions[name] = fields.count
        fields.append((name, .nested(subtree)))
    }
}

extension ProjectionTree {
    /// Inclusion: only the named fields (input order), then computed fields (specification order).
    func applyInclusion(to document: BSONDocument, scope: EvaluationScope) throws(StoreError) -> BSONDocument {
        var output = BSONDocument()
        for (key, value) in document {
            switch field(named: key) {
            case .include?:
                output.append(key, value)
            case .nested(let subtree)?:
                if let projected = try subtree.includeValue(value, scope: scope) { output.append(key, projected) }
            default:
                continue
            }
        }
        for (name, field) in fields {
            switch field {
            case .computed(let expression):
                if let value = try expression.evaluate(in: scope) { output[name] = value }
            case .nested(let subtree) where subtree.containsComputed && document[name] == nil:
                output[name] = .document(try subtree.applyInclusion(to: BSONDocument(), scope: scope))
            default:
                continue
            }
        }
        return output
    }

    /// A value below a nested inclusion: documents are projected, arrays element by element; other values
    /// vanish unless computed fields turn them into documents.
    private func includeValue(_ value: BSON, scope: EvaluationScope) throws(StoreError) -> BSON? {
        switch value {
        case .document(let document):
            return .document(try applyInclusion(to: document, scope: scope))
        case .array(let elements):
            var output: [BSON] = []
            for element in elements {
                if let projected = try includeValue(element, scope: scope) { output.append(projected) }
            }
            return .array(output)
        default:
            return containsComputed ? .document(try applyInclusion(to: BSONDocument(), scope: scope)) : nil
        }
    }

    /// Exclusion: everything but the named fields, looking into documents and arrays along the way.
    func applyExclusion(to document: BSONDocument) -> BSONDocument {
        var output = BSONDocument()
        for (key, value) in document {
            switch field(named: key) {
            case .exclude?: continue
            case .nested(let subtree)?: output.append(key, subtree.excludeValue(value))
            default: output.append(key, value)
            }
        }
        return output
    }

    private func excludeValue(_ value: BSON) -> BSON {
        switch value {
        case .document(let document): .document(applyExclusion(to: document))
        case .array(let elements): .array(elements.map(excludeValue))
        default: value
        }
    }

    /// `$addFields`: every field kept, computed ones set in place or appended; missing (`$$REMOVE`) removes.
    func applyAdditions(to document: BSONDocument, scope: EvaluationScope) throws(StoreError) -> BSONDocument {
        var output = document
        for (name, field) in fields {
            switch field {
            case .computed(let expression):
                if let value = try expression.evaluate(in: scope) {
                    output[name] = value
                } else {
                    output.removeValue(forKey: name)
                }
            case .nested(let subtree):
                output[name] = try subtree.addToValue(output[name], scope: scope)
            case .include, .exclude:
                continue
            }
        }
        return output
    }

    /// Nested additions go into every document of an array; anything that is not a document becomes one.
    private func addToValue(_ value: BSON?, scope: EvaluationScope) throws(StoreError) -> BSON {
        switch value {
        case .document(let document)?:
            return .document(try applyAdditions(to: document, scope: scope))
        case .array(let elements)?:
            var output: [BSON] = []
            output.reserveCapacity(elements.count)
            for element in elements { output.append(try addToValue(element, scope: scope)) }
            return .array(output)
        default:
            return .document(try applyAdditions(to: BSONDocument(), scope: scope))
        }
    }
}
