import BSON

/// `$lookup` in its three forms: equality (`localField`/`foreignField`), `let` + `pipeline`, and both
/// (5.0+: the equality match first, then the pipeline over the matches).
struct LookupStage: AggregationStage {
    let from: String
    let outputPath: [String]
    let localField: [String]?
    let foreignField: [String]?
    let bindings: [(String, Expression)]
    let pipeline: Pipeline?

    init(_ spec: BSON, nesting: Int) throws(StoreError) {
        guard case .document(let document) = spec else {
            throw .location(40319, "the $lookup specification must be an Object, but found \(spec.typeName)")
        }
        var from: String?
        var outputPath: [String]?
        var localField: [String]?
        var foreignField: [String]?
        var bindings: [(String, Expression)] = []
        var pipeline: Pipeline?
        for (key, value) in document {
            if key == "let" {
                guard case .document(let vars) = value else {
                    throw .failedToParse(
                        "$lookup argument 'let: \(value.shellDescription)' must be an object, is type \(value.typeName)"
                    )
                }
                for (name, expression) in vars {
                    try ExpressionNode.validateVariableName(name)
                    bindings.append((name, try Expression(expression)))
                }
                continue
            }
            if key == "pipeline" {
                guard case .array(let stages) = value else {
                    throw .failedToParse("$lookup argument 'pipeline' must be an array, is type \(value.typeName)")
                }
                var documents: [BSONDocument] = []
                for stage in stages {
                    guard case .document(let d) = stage else {
                        throw .typeMismatch(
                            "$lookup argument 'pipeline' must be an array of objects, found \(stage.typeName)")
                    }
                    documents.append(d)
                }
                pipeline = try Pipeline(documents, nesting: nesting + 1, inFacet: false)
                continue
            }
            guard case .string(let text) = value else {
                throw .failedToParse(
                    "$lookup argument '\(key): \(value.shellDescription)' must be a string, is type \(value.typeName)")
            }
            switch key {
            case "from": from = text
            case "as": outputPath = try aggregationPath(text, stage: "$lookup")
            case "localField": localField = try aggregationPath(text, stage: "$lookup")
            case "foreignField": foreignField = try aggregationPath(text, stage: "$lookup")
            default: throw .failedToParse("unknown argument to $lookup: \(key)")
            }
        }
        guard let from else { throw .failedToParse("must specify 'from' field for a $lookup") }
        guard let outputPath else { throw .failedToParse("must specify 'as' field for a $lookup") }
        if (localField == nil) != (foreignField == nil) {
            throw .failedToParse("$lookup requires both or neither of 'localField' and 'foreignField' to be specified")
        }
        if localField == nil && pipeline == nil {
            throw .failedToParse(
                "$lookup requires either 'pipeline' or both 'localField' and 'foreignField' to be specified")
        }
        if !bindings.isEmpty && pipeline == nil {
            throw .failedToParse("$lookup with 'let' must also specify 'pipeline'")
        }
        self.from = from
        self.outputPath = outputPath
        self.localField = localField
        self.foreignField = foreignField
        self.bindings = bindings
        self.pipeline = pipeline
    }

    func run(_ input: [BSONDocument], context: StageContext) throws(StoreError) -> [BSONDocument] {
        // One read of the foreign collection per run, not per input document.
        let foreign = try context.source.documents(inCollection: from)
        let index = foreignField.map { Self.index(foreign, by: $0) }
        var output: [BSONDocument] = []
        output.reserveCapacity(input.count)
        for document in input {
            var candidates = foreign
            if let localField, let index {
                var positions = Set<Int>()
                for key in Self.localKeys(document, localField) {
                    if let matches = index[EquivalenceKey(key)] { positions.formUnion(matches) }
                }
                candidates = positions.sorted().map { foreign[$0] }
            }
            if let pipeline {
                var inner = context
                let scope = context.scope(for: document)
                for (name, expression) in bindings {
                    inner.variables[name] = try expression.evaluate(in: scope) ?? .null
                }
                candidates = try pipeline.run(candidates, context: inner)
            }
            var joined = document
            joined.setAggregationValue(.array(candidates.map { .document($0) }), at: outputPath[...])
            output.append(joined)
        }
        return output
    }

    /// What the local field holds, arrays spread into their elements; nothing at all counts as null, which
    /// then matches foreign documents where the field is null or missing.
    static func localKeys(_ document: BSONDocument, _ path: [String]) -> [BSON] {
        var keys: [BSON] = []
        collectLocal(.document(document), path[...], into: &keys)
        return keys.isEmpty ? [.null] : keys
    }

    private static func collectLocal(_ value: BSON, _ path: ArraySlice<String>, into keys: inout [BSON]) {
        guard let first = path.first else {
            if case .array(let elements) = value { keys += elements } else { keys.append(value) }
            return
        }
        switch value {
        case .document(let document):
            if let child = document[first] { collectLocal(child, path.dropFirst(), into: &keys) }
        case .array(let elements):
            for element in elements { collectLocal(element, path, into: &keys) }
        default:
            break
        }
    }

    /// Foreign documents by every value a query on `path` would match: the value, each element of an array
    /// value, and null where the path is missing.
    static func index(_ documents: [BSONDocument], by path: [String]) -> [EquivalenceKey: [Int]] {
        var index: [EquivalenceKey: [Int]] = [:]
        for (position, document) in documents.enumerated() {
            var keys: [BSON] = []
            collectForeign(.document(document), path[...], into: &keys)
            var seen = Set<EquivalenceKey>()
            for key in keys where seen.insert(EquivalenceKey(key)).inserted {
                index[EquivalenceKey(key), default: []].append(position)
            }
        }
        return index
    }

    private static func collectForeign(_ value: BSON, _ path: ArraySlice<String>, into keys: inout [BSON]) {
        guard let first = path.first else {
            keys.append(value)
            if case .array(let elements) = value { keys += elements }
            return
        }
        switch value {
        case .document(let document):
            if let child = document[first] {
                collectForeign(child, path.dropFirst(), into: &keys)
            } else {
                keys.append(.null)
            }
        case .array(let elements):
            for element in elements {
                if case .document = element { collectForeign(element, path, into: &keys) }
            }
        default:
            keys.append(.null)
        }
    }
}
