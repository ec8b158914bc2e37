import BSON

/// `$group`. Groups come out in the order their keys were first seen; a missing key groups with null.
struct GroupStage: AggregationStage {
    let key: Expression
    let accumulators: [Accumulator]

    init(_ spec: BSON) throws(StoreError) {
        guard case .document(let document) = spec else {
            throw .location(15947, "a group's fields must be specified in an object")
        }
        var key: Expression?
        var accumulators: [Accumulator] = []
        for (field, value) in document {
            if field == "_id" {
                key = try Expression(value)
                continue
            }
            if field.hasPrefix("$") {
                throw .location(40236, "The field name '\(field)' cannot be an operator name")
            }
            if field.contains(".") {
                throw .location(
                    40235, "The field name '\(field)' cannot contain '.'")
            }
            accumulators.append(try Accumulator(field: field, spec: value))
        }
        guard let key else { throw .location(15955, "a group specification must include an _id") }
        self.key = key
        self.accumulators = accumulators
    }

    func run(_ input: [BSONDocument], context: StageContext) throws(StoreError) -> [BSONDocument] {
        var positions: [EquivalenceKey: Int] = [:]
        var keys: [BSON] = []
        var states: [[AccumulatorState]] = []
        let fresh = [AccumulatorState](repeating: AccumulatorState(), count: accumulators.count)
        for document in input {
            let scope = context.scope(for: document)
            let value = try key.evaluate(in: scope) ?? .null
            let position: Int
            if let existing = positions[EquivalenceKey(value)] {
                position = existing
            } else {
                position = keys.count
                positions[EquivalenceKey(value)] = position
                keys.append(value)
                states.append(fresh)
            }
            for (i, accumulator) in accumulators.enumerated() {
                try states[position][i].add(try accumulator.expression.evaluate(in: scope), kind: accumulator.kind)
            }
        }
        var output: [BSONDocument] = []
        output.reserveCapacity(keys.count)
        for (position, value) in keys.enumerated() {
            var document: BSONDocument = ["_id": value]
            for (i, accumulator) in accumulators.enumerated() {
                document.append(accumulator.field, states[position][i].result(accumulator.kind))
            }
            output.append(document)
        }
        return output
    }
}
