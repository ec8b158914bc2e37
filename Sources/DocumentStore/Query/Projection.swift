import BSON

/// A `find` projection (`{"title": 1, "_id": 0}`, exclusions, `$slice`, `$elemMatch`, positional `$`, and
/// computed fields such as `{"total": {"$add": ["$price", "$tax"]}}`).
///
/// A projection either includes fields (and `_id`, unless `_id: 0`) or excludes them; `$slice` fits either.
/// Dotted paths reach into embedded documents and into the documents inside arrays.
package struct Projection: Sendable {
    enum Mode: Sendable {
        case inclusion
        case exclusion
    }

    let mode: Mode
    let root: ProjectionLevel

    package init(_ specification: BSONDocument) throws(StoreError) {
        var builder = ProjectionBuilder()
        try builder.add(specification, prefix: [])
        mode = builder.mode ?? (builder.idRule == .include ? .inclusion : .exclusion)
        var root = builder.root
        if mode == .inclusion, root.rule(for: "_id") == nil {
            // An inclusion projection returns `_id` unless told `_id: 0`.
            try root.insert(.include, at: ["_id"][...], dotted: "_id")
        }
        self.root = root
    }

    /// True for `{}`: documents are returned whole.
    package var isEmpty: Bool { root.fields.isEmpty }

    /// The projected document. `match` is the filter's match, whose array position a positional
    /// projection (`grades.$`) needs.
    package func apply(to document: BSONDocument, match: QueryMatch? = nil) throws(StoreError) -> BSONDocument {
        if root.fields.isEmpty { return document }
        let context = ProjectionContext(root: document, arrayPosition: match?.arrayPosition, mode: mode)
        return try context.apply(root, to: document)
    }
}

/// One rule of a projection, at the end of a path.
indirect enum ProjectionRule: Sendable {
    case include
    case exclude
    case slice(skip: Int?, limit: Int)
    case elemMatch(QueryPredicate)
    case positional
    case computed(Expression)
    case nested(ProjectionLevel)

    var isLeaf: Bool {
        if case .nested = self { return false }
        return true
    }
}

extension ProjectionRule: Equatable {
    /// Only the plain rules are compared (to tell `_id: 1` from `_id: 0`).
    static func == (lhs: ProjectionRule, rhs: ProjectionRule) -> Bool {
        switch (lhs, rhs) {
        case (.include, .include), (.exclude, .exclude), (.positional, .positional): true
        default: false
        }
    }
}

/// The rules for the fields of one document level, in specification order.
struct ProjectionLevel: Sendable {
    private(set) var fields: [(name: String, rule: ProjectionRule)] = []
    private var positions: [String: Int] = [:]

    func rule(for name: String) -> ProjectionRule? {
        positions[name].map { fields[$0].rule }
    }

    /// Adds `rule` at the path below this level; two rules for one path, or for a path and its prefix,
    /// collide.
    mutating func insert(_ rule: ProjectionRule, at path: ArraySlice<String>, dotted: String) throws(StoreError) {
        guard let name = path.first else { return }
        let rest = path.dropFirst()
        if let position = positions[name] {
            guard !rest.isEmpty, case .nested(var level) = fields[position].rule else {
                throw .location(31250, "Path collision at \(dotted)")
            }
            fields[position].rule = .include  // release the level so it is mutated in place
            try level.insert(rule, at: rest, dotted: dotted)
            fields[position].rule = .nested(level)
            return
        }
        positions[name] = fields.count
        if rest.isEmpty {
            fields.append((name, rule))
        } else {
            var level = ProjectionLevel()
            try level.insert(rule, at: rest, dotted: dotted)
            fields.append((name, .nested(level)))
        }
    }
}

/// Reads a specification into a `ProjectionLevel` tree, deciding inclusion or exclusion as it goes.
struct ProjectionBuilder {
    var root = ProjectionLevel()
    var mode: Projection.Mode? = nil
    var idRule: ProjectionRule? = nil
    /// The array path a positional `field.$` projection narrows to the matched element; there may be one.
    var positionalPath: String? = nil

    mutating func add(_ specification: BSONDocument, prefix: [String]) throws(StoreError) {
        for (key, value) in specification {
            var components = prefix
            var isPositional = false
            for (index, component) in key.split(separator: ".", omittingEmptySubsequences: false).enumerated() {
                if component == "$", index > 0 || !prefix.isEmpty {
                    isPositional = true
                    continue
                }
                if isPositional {
                    throw .location(
                        31394,
                        "Positional projection '\(key)' may only use the positional operator at the end of the path")
                }
                try Self.validate(component, in: key)
                components.append(String(component))
            }
            let dotted = components.joined(separator: ".")
            if isPositional {
                guard value.isTruthy, value.isNumber || value.boolValue != nil else {
                    throw .badValue("Positional projection '\(key)' must be 1 or true")
                }
                if positionalPath != nil {
                    throw .location(31276, "Cannot specify more than one positional projection per query.")
                }
                positionalPath = dotted
                try place(.positional, at: components, dotted: dotted)
                continue
            }
            try add(value, at: components, dotted: dotted)
        }
    }

    private mutating func add(_ value: BSON, at components: [String], dotted: String) throws(StoreError) {
        switch value {
        case .int32, .int64, .double, .decimal128, .bool:
            try place(value.isTruthy ? .include : .exclude, at: components, dotted: dotted)
        case .document(let document) where document.isEmpty:
            throw .location(
                51270, "An empty sub-projection is not a valid value. Found empty object at path \(dotted)")
        case .document(let document) where document.keys.first?.hasPrefix("$") == true:
            try place(
                try Self.operatorRule(document, dotted: dotted, isNested: components.count > 1),
                at: components, dotted: dotted)
        case .document(let document):
            try add(document, prefix: components)
        default:
            // Strings, arrays, null, …: computed fields ("$field" paths, literals).
            try place(.computed(try Expression(value)), at: components, dotted: dotted)
        }
    }

    private static func operatorRule(_ document: BSONDocument, dotted: String, isNested: Bool) throws(StoreError)
        -> ProjectionRule
    {
        switch document.keys.first {
        case "$meta":
            throw .badValue("$meta projections are not supported: Switchyard has no text or search scores")
        case "$elemMatch" where document.count == 1:
            if isNested { throw .location(31275, "Cannot use $elemMatch projection on a nested field.") }
            return .elemMatch(try QueryFilterParser().parseElemMatch(document["$elemMatch"] ?? .null, depth: 0))
        case "$slice" where document.count == 1:
            if let rule = try sliceRule(document["$slice"] ?? .null) { return rule }
            return .computed(try Expression(.document(document)))
        default:
            return .computed(try Expression(.document(document)))
        }
    }

    /// `$slice: n` or `$slice: [skip, limit]`; nil when the operand is an aggregation `$slice` expression.
    private static func sliceRule(_ operand: BSON) throws(StoreError) -> ProjectionRule? {
        if operand.isNumber {
            guard let limit = operand.clampedInt else { throw .badValue("$slice limit must be a whole number") }
            return .slice(skip: nil, limit: limit)
        }
        guard case .array(let arguments) = operand, arguments.count == 2, arguments.allSatisfy(\.isNumber) else {
            return nil
        }
        guard let skip = arguments[0].clampedInt, let limit = arguments[1].clampedInt else {
            throw .badValue("$slice arguments must be whole numbers")
        }
        if limit <= 0 { throw .location(28724, "Second argument to $slice must be a positive number") }
        return .slice(skip: skip, limit: limit)
    }

    private mutating func place(_ rule: ProjectionRule, at components: [String], dotted: String)
        throws(StoreError)
    {
        if components == ["_id"], rule == .include || rule == .exclude {
            idRule = rule
        } else {
            switch rule {
            case .include, .positional, .elemMatch:
                if mode == .exclusion {
                    throw .location(31253, "Cannot do inclusion on field \(dotted) in exclusion projection")
                }
                mode = .inclusion
            case .computed:
                if mode == .exclusion {
                    throw .location(31252, "Cannot use expression other than $meta in exclusion projection")
                }
                mode = .inclusion
            case .exclude:
                if mode == .inclusion {
                    throw .location(31254, "Cannot do exclusion on field \(dotted) in inclusion projection")
                }
                mode = .exclusion
            case .slice, .nested:
                break
            }
        }
        try root.insert(rule, at: components[...], dotted: dotted)
    }

    private static func validate(_ component: Substring, in key: String) throws(StoreError) {
        if component.isEmpty { throw .location(15998, "FieldPath field names may not be empty strings.") }
        if component.hasPrefix("$") {
            throw .location(
                16410, "FieldPath field names may not start with '$'. Consider using $getField or $setField.")
        }
    }
}

/// What applying a projection to one document needs besides the rules.
struct ProjectionContext {
    let root: BSONDocument
    let arrayPosition: Int?
    let mode: Projection.Mode

    func apply(_ level: ProjectionLevel, to document: BSONDocument) throws(StoreError) -> BSONDocument {
        switch mode {
        case .inclusion: try include(level, from: document)
        case .exclusion: try exclude(level, from: document)
        }
    }

    /// Keeps the fields the rules name, in the document's order, then appends computed fields.
    private func include(_ level: ProjectionLevel, from document: BSONDocument) throws(StoreError) -> BSONDocument {
        var result = BSONDocument()
        for (name, value) in document {
            guard let rule = level.rule(for: name) else { continue }
            switch rule {
            case .include:
                result.append(name, value)
            case .exclude, .computed:
                continue
            case .slice(let skip, let limit):
                result.append(name, Self.slice(value, skip: skip, limit: limit))
            case .elemMatch(let predicate):
                // The first matching element, or no field at all.
                var position: Int? = nil
                guard case .array(let elements) = value, try predicate.matches(value, innerPosition: &position),
                    let position
                else { continue }
                result.append(name, .array([elements[position]]))
            case .positional:
                result.append(name, try positionalElement(of: value))
            case .nested(let child):
                if let projected = try includeNested(child, in: value) { result.append(name, projected) }
            }
        }
        for (name, rule) in level.fields {
            if case .computed(let expression) = rule { result[name] = try expression.evaluate(root) }
        }
        return result
    }

    private func includeNested(_ level: ProjectionLevel, in value: BSON) throws(StoreError) -> BSON? {
        switch value {
        case .document(let document):
            return .document(try include(level, from: document))
        case .array(let elements):
            var projected: [BSON] = []
            for element in elements {
                if let kept = try includeNested(level, in: element) { projected.append(kept) }
            }
            return .array(projected)
        default:
            return nil  // a scalar has none of the named subfields
        }
    }

    /// Drops the fields the rules name and slices the `$slice`d ones; everything else stays.
    private func exclude(_ level: ProjectionLevel, from document: BSONDocument) throws(StoreError) -> BSONDocument {
        var result = BSONDocument()
        for (name, value) in document {
            switch level.rule(for: name) {
            case nil, .include?, .computed?, .elemMatch?, .positional?:
                result.append(name, value)
            case .exclude?:
                continue
            case .slice(let skip, let limit)?:
                result.append(name, Self.slice(value, skip: skip, limit: limit))
            case .nested(let child)?:
                result.append(name, try excludeNested(child, in: value))
            }
        }
        return result
    }

    private func excludeNested(_ level: ProjectionLevel, in value: BSON) throws(StoreError) -> BSON {
        switch value {
        case .document(let document):
            return .document(try exclude(level, from: document))
        case .array(let elements):
            var projected: [BSON] = []
            for element in elements { projected.append(try excludeNested(level, in: element)) }
            return .array(projected)
        default:
            return value
        }
    }

    private func positionalElement(of value: BSON) throws(StoreError) -> BSON {
        guard case .array(let elements) = value, let position = arrayPosition, position < elements.count else {
            throw .location(51246, "positional operator '.$' couldn't find a matching element in the array")
        }
        return .array([elements[position]])
    }

    /// `$slice: n` keeps the first n elements (the last -n when negative); `[skip, limit]` skips first
    /// (from the end when negative). Values that are not arrays are left alone.
    static func slice(_ value: BSON, skip: Int?, limit: Int) -> BSON {
        guard case .array(let elements) = value else { return value }
        let count = elements.count
        let start: Int
        let length: Int
        if let skip {
            start = skip >= 0 ? min(skip, count) : max(count + skip, 0)
            length = limit
        } else if limit >= 0 {
            start = 0
            length = limit
        } else {
            start = max(count + limit, 0)
            length = count - start
        }
        let end = min(start + length, count)
        return .array(Array(elements[start..<end]))
    }
}

extension BSON {
    /// The value as an Int when it is a whole number, clamped to ±2^31 (more than any array holds).
    var clampedInt: Int? {
        guard let d = doubleValue, d.isFinite, d.rounded(.towardZero) == d else { return nil }
        return Int(max(min(d, 2_147_483_647), -2_147_483_648))
    }
}
