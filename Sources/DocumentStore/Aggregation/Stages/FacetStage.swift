import BSON

/// `$facet`: several sub-pipelines over the same input, their results gathered into one document.
struct FacetStage: AggregationStage {
    let facets: [(String, Pipeline)]

    init(_ spec: BSON, nesting: Int) throws(StoreError) {
        guard case .document(let document) = spec, !document.isEmpty else {
            throw .location(40169, "the $facet specification must be a non-empty object")
        }
        var facets: [(String, Pipeline)] = []
        for (name, value) in document {
            _ = try aggregationPath(name, stage: "$facet")
            guard case .array(let stages) = value else {
                throw .location(40170, "arguments to $facet must be arrays, \(name) is type \(value.typeName)")
            }
            var documents: [BSONDocument] = []
            for stage in stages {
                guard case .document(let d) = stage else {
                    throw .location(
                        40171, "all elements of pipeline '\(name)' must be objects, found \(stage.typeName)")
                }
                documents.append(d)
            }
            guard !documents.isEmpty else {
                throw .location(40170, "sub-pipeline in $facet stage cannot be empty: \(name)")
            }
            facets.append((name, try Pipeline(documents, nesting: nesting + 1, inFacet: true)))
        }
        self.facets = facets
    }

    func run(_ input: [BSONDocument], context: StageContext) throws(StoreError) -> [BSONDocument] {
        var output = BSONDocument()
        for (name, pipeline) in facets {
            output.append(name, .array(try pipeline.run(input, context: context).map { .document($0) }))
        }
        return [output]
    }
}
