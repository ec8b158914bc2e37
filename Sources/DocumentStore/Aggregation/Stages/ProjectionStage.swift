import BSON

/// `$project`, `$addFields`/`$set` and `$unset`: one tree, three ways to apply it.
struct ProjectionStage: AggregationStage {
    enum Mode {
        case inclusion, exclusion, addition
    }

    let tree: ProjectionTree
    let mode: Mode

    func run(_ input: [BSONDocument], context: StageContext) throws(StoreError) -> [BSONDocument] {
        var output: [BSONDocument] = []
        output.reserveCapacity(input.count)
        for document in input {
            switch mode {
            case .inclusion: output.append(try tree.applyInclusion(to: document, scope: context.scope(for: document)))
            case .exclusion: output.append(tree.applyExclusion(to: document))
            case .addition: output.append(try tree.applyAdditions(to: document, scope: context.scope(for: document)))
            }
        }
        return output
    }
}

extension ProjectionStage {
    /// `$project`: 1/true include, 0/false exclude, anything else is an expression (4.4+ rules); inclusion and
    /// exclusion do not mix, except for `_id`, which is included unless excluded.
    init(project spec: BSON) throws(StoreError) {
        guard case .document(let document) = spec else {
            throw .location(15969, "$project specification must be an object")
        }
        guard !document.isEmpty else {
            throw .location(
                51272, "Invalid $project :: caused by :: projection specification must have at least one field")
        }
        var parser = ProjectParser()
        try parser.parse(document, prefix: [], depth: 0)
        var tree = parser.tree
        let mode = parser.mode ?? (parser.excludesId ? .exclusion : .inclusion)
        if mode == .inclusion && tree.field(named: "_id") == nil {
            try tree.insert(.include, at: ["_id"], fullPath: "_id", stage: "$project")
        }
        self.init(tree: tree, mode: mode)
    }

    /// `$addFields` / `$set`: every value is an expression, except documents of plain field names, which
    /// name fields inside an embedded document.
    init(addFields spec: BSON, stageName: String) throws(StoreError) {
        guard case .document(let document) = spec else {
            throw .location(40272, "\(stageName) specification stage must be an object, got \(spec.typeName)")
        }
        var tree = ProjectionTree()
        try Self.parseAdditions(document, prefix: [], into: &tree, stage: stageName, depth: 0)
        self.init(tree: tree, mode: .addition)
    }

    private static func parseAdditions(
        _ document: BSONDocument, prefix: [String], into tree: inout ProjectionTree, stage: String, depth: Int
    ) throws(StoreError) {
        guard depth < ExpressionNode.maximumDepth else { throw .location(15983, "\(stage) is nested too deeply") }
        for (key, value) in document {
            let path = prefix + (try aggregationPath(key, stage: stage))
            if case .document(let nested) = value, let first = nested.keys.first, !first.hasPrefix("$") {
                try parseAdditions(nested, prefix: path, into: &tree, stage: stage, depth: depth + 1)
            } else {
                let fullPath = path.joined(separator: ".")
                try tree.insert(.computed(try Expression(value)), at: path[...], fullPath: fullPath, stage: stage)
            }
        }
    }

    /// `$unset: "a"` or `$unset: ["a", "b.c"]`: an exclusion projection (which may exclude `_id`).
    init(unset spec: BSON) throws(StoreError) {
        let names: [BSON]
        switch spec {
        case .string: names = [spec]
        case .array(let list):
            guard !list.isEmpty else {
                throw .location(31119, "$unset specification must be a string or an array with at least one field")
            }
            names = list
        default:
            throw .location(31002, "$unset specification must be a string or an array")
        }
        var tree = ProjectionTree()
        for name in names {
            guard case .string(let path) = name else {
                throw .location(
                    31120, "$unset specification must be a string or an array containing only string values")
            }
            let components = try aggregationPath(path, stage: "$unset")
            try tree.insert(.exclude, at: components[...], fullPath: path, stage: "$unset")
        }
        self.init(tree: tree, mode: .exclusion)
    }
}

/// Builds a `$project` tree, deciding inclusion or exclusion from the first field that says (other than `_id`).
private struct ProjectParser {
    var tree = ProjectionTree()
    var mode: ProjectionStage.Mode?
    var excludesId = false

    mutating func parse(_ document: BSONDocument, prefix: [String], depth: Int) throws(StoreError) {
        guard depth < ExpressionNode.maximumDepth else { throw .location(15983, "$project is nested too deeply") }
        for (key, value) in document {
            let path = prefix + (try aggregationPath(key, stage: "$project"))
            let fullPath = path.joined(separator: ".")
            let isTopLevelId = path == ["_id"]
            switch value {
            case .bool, .int32, .int64, .double, .decimal128:
                let include = Expression.isTrue(value)
                if isTopLevelId {
                    excludesId = !include
                } else {
                    try settle(include ? .inclusion : .exclusion, field: fullPath)
                }
                try tree.insert(include ? .include : .exclude, at: path[...], fullPath: fullPath, stage: "$project")
            case .document(let nested) where nested.keys.first.map({ !$0.hasPrefix("$") }) ?? true:
                guard !nested.isEmpty else {
                    throw .location(
                        51270,
                        "Invalid $project :: caused by :: An empty sub-projection is not a valid value. "
                            + "Found empty object at path")
                }
                try parse(nested, prefix: path, depth: depth + 1)
            default:
                if mode == .exclusion {
                    throw .location(
                        31252,
                        "Invalid $project :: caused by :: Cannot use expression other than $meta in exclusion projection"
                    )
                }
                if !isTopLevelId { mode = .inclusion }
                try tree.insert(.computed(try Expression(value)), at: path[...], fullPath: fullPath, stage: "$project")
            }
        }
    }

    private mutating func settle(_ wanted: ProjectionStage.Mode, field: String) throws(StoreError) {
        switch (mode, wanted) {
        case (nil, _): mode = wanted
        case (.inclusion?, .exclusion):
            throw .location(
                31253, "Invalid $project :: caused by :: Cannot do exclusion on field \(field) in inclusion projection")
        case (.exclusion?, .inclusion):
            throw .location(
                31254, "Invalid $project :: caused by :: Cannot do inclusion on field \(field) in exclusion projection")
        default: break
        }
    }
}
