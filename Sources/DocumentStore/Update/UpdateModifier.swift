import BSON

/// What one operator does to the value at its path, with its argument parsed and checked at compile time.
enum UpdateModifier: Sendable {
    case set(BSON)
    case setOnInsert(BSON)
    case unset
    case inc(BSON)
    case mul(BSON)
    case min(BSON)
    case max(BSON)
    case currentDate(asTimestamp: Bool)
    /// `$rename`'s destination: receives the value read from `source` before the update ran.
    case renameTarget(source: UpdatePath)
    /// `$rename`'s source: removed. Also claims the path, so no other operator may touch it.
    case renameSource
    case push(PushClause)
    case addToSet([BSON])
    case pull(PullCondition)
    case pullAll([BSON])
    case pop(fromFront: Bool)

    /// Parses the argument of `op` for `field`. `$rename` is parsed by the specification, as it claims two
    /// paths.
    init(_ op: UpdateOperator, field: String, argument: BSON) throws(StoreError) {
        switch op {
        case .set: self = .set(argument)
        case .setOnInsert: self = .setOnInsert(argument)
        case .unset: self = .unset
        case .inc, .mul:
            guard argument.isNumber else {
                let verb = op == .inc ? "increment" : "multiply"
                throw .typeMismatch(
                    "Cannot \(verb) with non-numeric argument: \(BSONDocument.messageText(field: field, value: argument))"
                )
            }
            self = op == .inc ? .inc(argument) : .mul(argument)
        case .min: self = .min(argument)
        case .max: self = .max(argument)
        case .currentDate: self = try Self.currentDate(argument)
        case .push: self = .push(try PushClause(argument))
        case .addToSet: self = .addToSet(try Self.addToSetValues(argument))
        case .pull: self = .pull(try PullCondition(argument))
        case .pullAll:
            guard case .array(let values) = argument else {
                throw .badValue("$pullAll requires an array argument but was given a \(argument.typeName)")
            }
            self = .pullAll(values)
        case .pop:
            guard let number = argument.doubleValue, argument.isNumber else {
                throw .failedToParse("Expected a number in: \(field): \(argument.messageText)")
            }
            guard number == 1 || number == -1 else {
                throw .failedToParse("$pop expects 1 or -1, found: \(argument.messageText)")
            }
            self = .pop(fromFront: number < 0)
        case .rename:
            throw .failedToParse("$rename is parsed with both of its paths")
        }
    }

    private static func currentDate(_ argument: BSON) throws(StoreError) -> UpdateModifier {
        switch argument {
        case .bool:
            return .currentDate(asTimestamp: false)
        case .document(let options):
            for (key, value) in options {
                guard key == "$type" else {
                    throw .badValue("Unrecognized $currentDate option: \(key)")
                }
                switch value {
                case "date": return .currentDate(asTimestamp: false)
                case "timestamp": return .currentDate(asTimestamp: true)
                default:
                    throw .badValue(
                        "The '$type' string field is required to be 'date' or 'timestamp': {$currentDate: {field : {$type: 'date'}}}"
                    )
                }
            }
            throw .badValue("The '$type' string field is required to be 'date' or 'timestamp'")
        default:
            throw .badValue(
                "\(argument.typeName) is not valid type for $currentDate. Please use a boolean ('true') or a $type expression ({$type: 'timestamp/date'})."
            )
        }
    }

    /// `$addToSet: {f: v}` adds `v`; `{f: {$each: [...]}}` adds each, once. Duplicates in `$each` are dropped
    /// the way the server drops them: by BSON comparison, so `1` and `1.0` count as one.
    private static func addToSetValues(_ argument: BSON) throws(StoreError) -> [BSON] {
        guard case .document(let clause) = argument, let first = clause.first, first.key == "$each" else {
            return [argument]
        }
        guard case .array(let values) = first.value else {
            throw .typeMismatch(
                "The argument to $each in $addToSet must be an array but it was of type \(first.value.typeName)")
        }
        guard clause.count == 1 else {
            throw .badValue("Found unexpected fields after $each in $addToSet: \(argument.messageText)")
        }
        var unique: [BSON] = []
        for value in values where !unique.contains(where: { BSON.equivalent($0, value) }) {
            unique.append(value)
        }
        return unique
    }

    /// Modifiers that leave a missing path alone but still fail when the path could not exist (a scalar
    /// in the way), as `$pull` and `$pop` do on the server. `$unset` is the one that never fails.
    var requiresViablePath: Bool {
        switch self {
        case .pull, .pullAll, .pop: true
        default: false
        }
    }
}

/// What applying a node did to the value at its path.
enum FieldChange {
    case keep
    case set(BSON)
    case remove
}

extension UpdateModifier {
    /// Applies the modifier to `value` (nil when the path is missing), found at the resolved `path`.
    func apply(to value: BSON?, at path: [String], in application: UpdateApplication) throws(StoreError)
        -> FieldChange
    {
        switch self {
        case .set(let newValue):
            return value == newValue ? .keep : .set(newValue)
        case .setOnInsert(let newValue):
            return application.isInsert && value != newValue ? .set(newValue) : .keep
        case .unset:
            return value == nil ? .keep : .remove
        case .inc(let operand):
            return try Self.arithmetic(.add, value, operand, at: path, in: application)
        case .mul(let operand):
            return try Self.arithmetic(.multiply, value, operand, at: path, in: application)
        case .min(let bound):
            guard let value else { return .set(bound) }
            return BSON.compare(bound, value) < 0 ? .set(bound) : .keep
        case .max(let bound):
            guard let value else { return .set(bound) }
            return BSON.compare(bound, value) > 0 ? .set(bound) : .keep
        case .currentDate(let asTimestamp):
            return .set(asTimestamp ? .timestamp(application.timestamp) : .datetime(application.now))
        case .renameTarget(let source):
            return application.renamedValues[source.description].map { .set($0) } ?? .keep
        case .renameSource:
            return value == nil ? .keep : .remove
        case .push(let clause):
            return try clause.apply(to: value, at: path, in: application)
        case .addToSet(let values):
            return try Self.addToSet(values, to: value, at: path)
        case .pull(let condition):
            return try Self.cull(value) { (element) throws(StoreError) in try condition.matches(element) }
        case .pullAll(let values):
            return try Self.cull(value) { element in values.contains { BSON.equivalent($0, element) } }
        case .pop(let fromFront):
            return try Self.pop(value, fromFront: fromFront, at: path)
        }
    }

    private static func addToSet(_ values: [BSON], to value: BSON?, at path: [String]) throws(StoreError)
        -> FieldChange
    {
        guard let value else { return .set(.array(values)) }
        guard case .array(var elements) = value else {
            throw .badValue(
                "Cannot apply $addToSet to non-array field. Field named '\(path.last ?? "")' has non-array type \(value.typeName)"
            )
        }
        let count = elements.count
        for candidate in values where !elements.contains(where: { BSON.equivalent($0, candidate) }) {
            elements.append(candidate)
        }
        return elements.count == count ? .keep : .set(.array(elements))
    }

    /// `$pull` and `$pullAll`: drop the elements `isRemoved` picks.
    private static func cull(_ value: BSON?, _ isRemoved: (BSON) throws(StoreError) -> Bool) throws(StoreError)
        -> FieldChange
    {
        guard let value else { return .keep }
        guard case .array(let elements) = value else {
            throw .badValue("Cannot apply $pull to a non-array value")
        }
        var kept: [BSON] = []
        for element in elements where try !isRemoved(element) { kept.append(element) }
        return kept.count == elements.count ? .keep : .set(.array(kept))
    }

    private static func pop(_ value: BSON?, fromFront: Bool, at path: [String]) throws(StoreError) -> FieldChange {
        guard let value else { return .keep }
        guard case .array(var elements) = value else {
            throw .typeMismatch(
                "Path '\(path.joined(separator: "."))' contains an element of non-array type '\(value.typeName)'")
        }
        guard !elements.isEmpty else { return .keep }
        if fromFront { elements.removeFirst() } else { elements.removeLast() }
        return .set(.array(elements))
    }
}
