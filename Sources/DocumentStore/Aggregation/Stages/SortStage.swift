import BSON

/// `$sort`, stable: documents that compare equal keep their input order.
struct SortStage: AggregationStage {
    let specification: SortSpecification

    init(_ spec: BSON) throws(StoreError) {
        guard case .document(let document) = spec else {
            throw .location(15973, "the $sort key specification must be an object")
        }
        guard !document.isEmpty else { throw .location(15976, "$sort stage must have at least one sort key") }
        specification = try SortSpecification(document)
    }

    func run(_ input: [BSONDocument], context: StageContext) throws(StoreError) -> [BSONDocument] {
        input.indices.sorted { a, b in
            let order = specification.compare(input[a], input[b])
            return order != 0 ? order < 0 : a < b
        }.map { input[$0] }
    }
}
