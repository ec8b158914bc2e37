import BSON

/// `$replaceRoot: {newRoot: expr}` and `$replaceWith: expr`.
struct ReplaceRootStage: AggregationStage {
    let newRoot: Expression

    init(replaceRoot spec: BSON) throws(StoreError) {
        guard case .document(let document) = spec else {
            throw .location(40229, "expected an object as specification for $replaceRoot stage, got \(spec.typeName)")
        }
        var newRoot: Expression?
        for (key, value) in document {
            guard key == "newRoot" else {
                throw .location(
                    40230, "unrecognized option to $replaceRoot stage: \(key), only valid option is 'newRoot'.")
            }
            newRoot = try Expression(value)
        }
        guard let newRoot else { throw .location(40231, "no newRoot specified for the $replaceRoot stage") }
        self.newRoot = newRoot
    }

    init(replaceWith spec: BSON) throws(StoreError) {
        newRoot = try Expression(spec)
    }

    func run(_ input: [BSONDocument], context: StageContext) throws(StoreError) -> [BSONDocument] {
        var output: [BSONDocument] = []
        output.reserveCapacity(input.count)
        for document in input {
            let value = try newRoot.evaluate(in: context.scope(for: document))
            guard case .document(let root)? = value else {
                throw .location(
                    40228,
                    "'newRoot' expression must evaluate to an object, but resulting value was: "
                        + "\(value?.shellDescription ?? "MISSING"). Type of resulting value: '\(typeName(value))'. "
                        + "Input document: \(BSON.document(document).shellDescription)")
            }
            output.append(root)
        }
        return output
    }
}
