import BSON

/// A compiled aggregation pipeline.
package struct Pipeline: Sendable {
    let stages: [any AggregationStage]

    /// Sub-pipelines (`$lookup`, `$facet`) nested deeper than this are refused.
    static let maximumNesting = 20

    package init(_ stages: [BSONDocument]) throws(StoreError) {
        try self.init(stages, nesting: 0, inFacet: false)
    }

    init(_ stages: [BSONDocument], nesting: Int, inFacet: Bool) throws(StoreError) {
        guard nesting <= Self.maximumNesting else {
            throw .location(
                5_054_701, "Maximum number of nested sub-pipelines exceeded. Limit is \(Self.maximumNesting)")
        }
        var compiled: [any AggregationStage] = []
        for stage in stages {
            compiled.append(try Self.compile(stage, nesting: nesting, inFacet: inFacet))
        }
        self.stages = compiled
    }

    /// Runs the pipeline over `input`; `$lookup` reads other collections of the same database through `source`.
    /// `variables` are what `$$name` reads (`$merge`'s `let`, `$$new`).
    package func run(_ input: [BSONDocument], source: any PipelineSource, variables: [String: BSON] = [:])
        throws(StoreError) -> [BSONDocument]
    {
        try run(input, context: StageContext(source: source, variables: variables))
    }

    func run(_ input: [BSONDocument], context: StageContext) throws(StoreError) -> [BSONDocument] {
        var documents = input
        for stage in stages {
            try context.deadline?.check()
            documents = try stage.run(documents, context: context)
        }
        return documents
    }

    private static func compile(_ stage: BSONDocument, nesting: Int, inFacet: Bool) throws(StoreError)
        -> any AggregationStage
    {
        guard stage.count == 1, let name = stage.keys.first else {
            throw .location(40323, "A pipeline stage specification object must contain exactly one field.")
        }
        let spec = stage.values[0]
        switch name {
        case "$match": return try MatchStage(spec)
        case "$project": return try ProjectionStage(project: spec)
        case "$addFields", "$set": return try ProjectionStage(addFields: spec, stageName: name)
        case "$unset": return try ProjectionStage(unset: spec)
        case "$lookup": return try LookupStage(spec, nesting: nesting)
        case "$unwind": return try UnwindStage(spec)
        case "$group": return try GroupStage(spec)
        case "$sort": return try SortStage(spec)
        case "$skip": return try SkipStage(spec)
        case "$limit": return try LimitStage(spec)
        case "$count": return try CountStage(spec)
        case "$replaceRoot": return try ReplaceRootStage(replaceRoot: spec)
        case "$replaceWith": return try ReplaceRootStage(replaceWith: spec)
        case "$facet":
            if inFacet { throw .location(40600, "$facet is not allowed to be used within a $facet stage") }
            return try FacetStage(spec, nesting: nesting)
        default:
            throw .location(40324, "Unrecognized pipeline stage name: '\(name)'")
        }
    }
}

/// Where `$lookup` finds the documents of another collection in the same database.
package protocol PipelineSource: Sendable {
    func documents(inCollection name: String) throws(StoreError) -> [BSONDocument]
}

/// One compiled stage: documents in, documents out.
protocol AggregationStage: Sendable {
    func run(_ input: [BSONDocument], context: StageContext) throws(StoreError) -> [BSONDocument]
}

/// What every stage of one run shares: the other collections, the variables a `$lookup`'s `let` bound, and
/// the read's deadline.
struct StageContext: Sendable {
    var source: any PipelineSource
    var variables: [String: BSON]
    var deadline: ReadDeadline? = nil

    func scope(for document: BSONDocument) -> EvaluationScope {
        EvaluationScope(root: document, variables: variables)
    }
}
