import BSON

/// A `$group` accumulator (`total: {$sum: "$price"}`) with MongoDB's rules: `$sum` and `$avg` skip
/// non-numbers, `$min`/`$max` skip null and missing, `$push`/`$addToSet` skip missing.
struct Accumulator: Sendable {
    enum Kind: String, Sendable, CaseIterable {
        case sum = "$sum", avg = "$avg", min = "$min", max = "$max", push = "$push", addToSet = "$addToSet"
        case first = "$first", last = "$last", mergeObjects = "$mergeObjects", count = "$count"
    }

    let field: String
    let kind: Kind
    let expression: Expression

    init(field: String, spec: BSON) throws(StoreError) {
        guard case .document(let document) = spec else {
            throw .location(40234, "The field '\(field)' must be an accumulator object")
        }
        guard document.count == 1, let name = document.keys.first else {
            throw .location(40238, "The field '\(field)' must specify one accumulator")
        }
        guard let kind = Kind(rawValue: name) else {
            throw .location(15952, "unknown group operator '\(name)'")
        }
        let argument = document.values[0]
        if kind == .count {
            guard case .document(let empty) = argument, empty.isEmpty else {
                throw .location(40237, "$count takes no arguments, i.e. $count: {}")
            }
            expression = try Expression(1)
        } else {
            if case .array = argument {
                throw .location(40237, "The \(name) accumulator is a unary operator")
            }
            expression = try Expression(argument)
        }
        self.field = field
        self.kind = kind
    }
}

/// The running value of one accumulator in one group.
struct AccumulatorState: Sendable {
    private var sum = NumericSum()
    private var count = 0
    private var value: BSON?
    private var seen = false
    private var values: [BSON] = []
    private var members = Set<EquivalenceKey>()
    private var merged = BSONDocument()

    mutating func add(_ input: BSON?, kind: Accumulator.Kind) throws(StoreError) {
        switch kind {
        case .sum, .count, .avg:
            guard let number = input, number.isNumber else { return }
            try sum.add(number, operatorName: kind.rawValue)
            count += 1
        case .min, .max:
            guard let candidate = input, candidate != .null, candidate != .undefined else { return }
            if let current = value {
                let order = BSON.compare(candidate, current)
                guard kind == .min ? order < 0 : order > 0 else { return }
            }
            value = candidate
        case .push:
            if let input { values.append(input) }
        case .addToSet:
            if let input, members.insert(EquivalenceKey(input)).inserted { values.append(input) }
        case .first:
            if !seen { value = input }
            seen = true
        case .last:
            value = input
        case .mergeObjects:
            switch input {
            case nil, .null?, .undefined?: return
            case .document(let document)?:
                for (key, field) in document { merged[key] = field }
            case let other?:
                throw .location(
                    40400,
                    "$mergeObjects requires object inputs, but input \(other.shellDescription) is of type \(other.typeName)"
                )
            }
        }
    }

    func result(_ kind: Accumulator.Kind) -> BSON {
        switch kind {
        case .sum, .count: sum.result
        case .avg: count == 0 ? .null : .double(sum.doubleValue / Double(count))
        case .min, .max, .first, .last: value ?? .null
        case .push, .addToSet: .array(values)
        case .mergeObjects: .document(merged)
        }
    }
}
