import BSON

/// One application of a compiled update to one document: the walk of the update tree over the document,
/// with what the walk needs to know (the query's match, upsert or not, the clock, `$rename`'s values).
struct UpdateApplication {
    let match: QueryMatch?
    let isInsert: Bool
    let now: BSONDate
    let timestamp: BSONTimestamp
    let arrayFilters: ArrayFilters
    /// How error messages name the document (`_id: 1`).
    let documentIDText: String
    /// `$rename` sources' values, read before the walk, by source path.
    var renamedValues: [String: BSON] = [:]
    /// What the document may still grow by, spent before each change is built.
    let sizeBudget: DocumentSizeBudget

    /// Arrays are padded with nulls up to an index that `$set` writes; the server pads by at most this many.
    static let maximumPadding = 1_500_000

    /// Where a missing path cannot be created: the value that is in the way, and the number of path
    /// components up to it.
    struct Obstacle {
        let elementText: String
        let depth: Int
    }

    /// Applies the children of the root node to `document`.
    func applyRoot(_ root: UpdateObjectNode, to document: inout BSONDocument) throws(StoreError) {
        var value = BSON.document(document)
        document = [:]
        _ = try applyChildren(of: root, to: &value, at: [])
        document = value.documentValue ?? [:]
    }

    /// Applies `node` to `value` (nil when missing) at the resolved `path`. `obstacle` is set when an
    /// ancestor of the path is a value that cannot hold fields.
    func apply(_ node: UpdateNode, to value: BSON?, at path: [String], obstacle: Obstacle?) throws(StoreError)
        -> FieldChange
    {
        switch node {
        case .leaf(let leaf):
            let change = try leaf.modifier.apply(to: value, at: path, in: self)
            try spend(on: change, replacing: value, named: path.last ?? "")
            guard let obstacle else { return change }
            if case .set = change {
                throw .pathNotViable(
                    "Cannot create field '\(path[obstacle.depth])' in element {\(obstacle.elementText)}")
            }
            if leaf.modifier.requiresViablePath {
                throw .pathNotViable(
                    "Cannot use the part (\(path[obstacle.depth])) of (\(path.joined(separator: "."))) to traverse the element ({\(obstacle.elementText)})"
                )
            }
            return change
        case .object(let object):
            switch value {
            case .document?, .array?:
                var container = value ?? .null
                return try applyChildren(of: object, to: &container, at: path) ? .set(container) : .keep
            case nil where obstacle == nil:
                var container = BSON.document([:])
                return try applyChildren(of: object, to: &container, at: path) ? .set(container) : .keep
            case nil:
                for (name, child) in try children(of: object, at: path) {
                    _ = try apply(child, to: nil, at: path + [name], obstacle: obstacle)
                }
                return .keep
            case let scalar?:
                let obstacle = Obstacle(elementText: "\(path.last ?? ""): \(scalar.messageText)", depth: path.count)
                for (name, child) in try children(of: object, at: path) {
                    _ = try apply(child, to: nil, at: path + [name], obstacle: obstacle)
                }
                return .keep
            }
        case .array(let array):
            return try applyElements(of: array, to: value, at: path)
        }
    }

    /// Applies each child of `node` to its field of `container` (a document or an array), writing the
    /// results back. Returns true when anything changed.
    private func applyChildren(of node: UpdateObjectNode, to container: inout BSON, at path: [String])
        throws(StoreError) -> Bool
    {
        var changed = false
        switch container {
        case .document(var document):
            container = .null  // so that `document` is mutated in place
            defer { container = .document(document) }
            for (name, child) in try children(of: node, at: path) {
                switch try apply(child, to: document[name], at: path + [name], obstacle: nil) {
                case .keep: continue
                case .set(let value): document[name] = value
                case .remove: document.removeValue(forKey: name)
                }
                changed = true
            }
        case .array(var elements):
            let arrayText = { "\(path.last ?? ""): \(BSON.array(elements).messageText)" }
            container = .null
            defer { container = .array(elements) }
            for (name, child) in try children(of: node, at: path) {
                guard let index = Self.arrayIndex(name) else {
                    let obstacle = Obstacle(elementText: arrayText(), depth: path.count)
                    _ = try apply(child, to: nil, at: path + [name], obstacle: obstacle)
                    continue
                }
                let current = index < elements.count ? elements[index] : nil
                switch try apply(child, to: current, at: path + [name], obstacle: nil) {
                case .keep: continue
                case .set(let value):
                    if index >= elements.count {
                        let padding = index - elements.count
                        guard padding <= Self.maximumPadding else {
                            throw .cannotBackfillArray("can't backfill more than \(Self.maximumPadding) elements")
                        }
                        try sizeBudget.spend(BSON.paddingSize(from: elements.count, count: padding))
                        elements.append(contentsOf: repeatElement(.null, count: padding + 1))
                    }
                    elements[index] = value
                case .remove:
                    // Unsetting an array element leaves a null in its place, as on the server.
                    guard index < elements.count else { continue }
                    elements[index] = .null
                }
                changed = true
            }
        default:
            break
        }
        return changed
    }

    /// The children of `node` in application order, with the positional `$` child resolved to the index
    /// the query matched.
    private func children(of node: UpdateObjectNode, at path: [String]) throws(StoreError) -> [(String, UpdateNode)] {
        var names = node.orderedNames
        var nodes = [String: UpdateNode]()
        for name in names { nodes[name] = node.child(name) }
        if let positional = node.positional {
            guard let position = match?.arrayPosition else {
                throw .badValue("The positional operator did not find the match needed from the query.")
            }
            let name = String(position)
            if let existing = nodes[name] {
                nodes[name] = try UpdateNode.merged(
                    existing, positional, at: (path + [name]).joined(separator: "."))
            } else {
                nodes[name] = positional
                names.insert(name, at: names.firstIndex { UpdateObjectNode.precedes(name, $0) } ?? names.endIndex)
            }
        }
        return names.compactMap { name in nodes[name].map { (name, $0) } }
    }

    /// `$[]` and `$[identifier]`: each element gets the children that apply to it, merged.
    private func applyElements(of node: UpdateArrayNode, to value: BSON?, at path: [String]) throws(StoreError)
        -> FieldChange
    {
        guard let value else {
            throw .badValue(
                "The path '\(path.joined(separator: "."))' must exist in the document in order to apply array updates."
            )
        }
        guard case .array(var elements) = value else {
            throw .badValue("Cannot apply array updates to non-array element \(path.last ?? ""): \(value.messageText)")
        }
        var changed = false
        for index in elements.indices {
            let elementPath = path + [String(index)]
            var applicable: UpdateNode? = node.all
            for identifier in node.filtered.keys.sorted() where try arrayFilters.matches(identifier, elements[index]) {
                guard let child = node.filtered[identifier] else { continue }
                applicable =
                    try applicable.map { (existing) throws(StoreError) in
                        try UpdateNode.merged(existing, child, at: elementPath.joined(separator: "."))
                    } ?? child
            }
            guard let applicable else { continue }
            switch try apply(applicable, to: elements[index], at: elementPath, obstacle: nil) {
            case .keep: continue
            case .set(let newValue): elements[index] = newValue
            case .remove: elements[index] = .null
            }
            changed = true
        }
        return changed ? .set(.array(elements)) : .keep
    }

    /// Takes from the budget what a leaf's change adds to the document: the new value's bytes less the old
    /// one's (a new field also brings its key). Nested containers a path creates are left to the check of the
    /// encoded result: their keys come from the update itself, so they cannot grow past what the request holds.
    private func spend(on change: FieldChange, replacing value: BSON?, named name: String) throws(StoreError) {
        let before = value.map { $0.encodedSize + BSON.elementOverhead(keyBytes: name.utf8.count) } ?? 0
        switch change {
        case .keep: return
        case .set(let newValue):
            try sizeBudget.spend(newValue.encodedSize + BSON.elementOverhead(keyBytes: name.utf8.count) - before)
        case .remove: try sizeBudget.spend(-before)
        }
    }

    static func arrayIndex(_ name: String) -> Int? {
        guard !name.isEmpty, name.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(name)
    }
}
