import BSON

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension ExpressionNode {
    /// The value, or nil for missing.
    func evaluate(in scope: EvaluationScope) throws(StoreError) -> BSON? {
        switch self {
        case .constant(let value):
            return value
        case .fieldPath(let path):
            return AggregationFieldPath.resolve(.document(scope.root), path[...])
        case .variable(let name, let path):
            let base: BSON
            switch name {
            case "ROOT", "CURRENT": base = .document(scope.root)
            case "REMOVE": return nil
            case "NOW": base = .datetime(Self.now())
            default:
                guard let value = scope.variables[name] else {
                    throw .location(17276, "Use of undefined variable: \(name)")
                }
                base = value
            }
            return AggregationFieldPath.resolve(base, path[...])
        case .object(let fields):
            var document = BSONDocument()
            for (key, node) in fields {
                if let value = try node.evaluate(in: scope) { document.append(key, value) }
            }
            return .document(document)
        case .array(let nodes):
            var values: [BSON] = []
            values.reserveCapacity(nodes.count)
            for node in nodes { values.append(try node.evaluate(in: scope) ?? .null) }
            return .array(values)
        case .call(let op, let arguments):
            var values: [BSON?] = []
            values.reserveCapacity(arguments.count)
            for argument in arguments { values.append(try argument.evaluate(in: scope)) }
            return try op.apply(values)
        case .cond(let condition, let then, let otherwise):
            return try Expression.isTrue(condition.evaluate(in: scope))
                ? then.evaluate(in: scope) : otherwise.evaluate(in: scope)
        case .ifNull(let arguments):
            for argument in arguments.dropLast() {
                switch try argument.evaluate(in: scope) {
                case nil, .null?, .undefined?: continue
                case let value?: return value
                }
            }
            return try arguments.last?.evaluate(in: scope)
        case .switchCase(let branches, let fallback):
            for (condition, then) in branches where Expression.isTrue(try condition.evaluate(in: scope)) {
                return try then.evaluate(in: scope)
            }
            guard let fallback else {
                throw .location(
                    40066, "$switch could not find a matching branch for an input, and no default was specified.")
            }
            return try fallback.evaluate(in: scope)
        case .and(let arguments):
            for argument in arguments where !Expression.isTrue(try argument.evaluate(in: scope)) {
                return .bool(false)
            }
            return .bool(true)
        case .or(let arguments):
            for argument in arguments where Expression.isTrue(try argument.evaluate(in: scope)) {
                return .bool(true)
            }
            return .bool(false)
        case .filter(let input, let name, let condition, let limitNode):
            return try evaluateFilter(input, name, condition, limitNode, scope)
        case .map(let input, let name, let body):
            guard let elements = try Self.arrayInput(input.evaluate(in: scope), code: 16883, operator: "$map") else {
                return .null
            }
            var inner = scope
            var output: [BSON] = []
            output.reserveCapacity(elements.count)
            for element in elements {
                inner.variables[name] = element
                output.append(try body.evaluate(in: inner) ?? .null)
            }
            return .array(output)
        case .bind(let bindings, let body):
            var inner = scope
            // Every binding sees the outer scope, not its siblings, as MongoDB's $let does.
            for (name, node) in bindings { inner.variables[name] = try node.evaluate(in: scope) ?? .null }
            return try body.evaluate(in: inner)
        }
    }

    private func evaluateFilter(
        _ input: ExpressionNode, _ name: String, _ condition: ExpressionNode, _ limitNode: ExpressionNode?,
        _ scope: EvaluationScope
    ) throws(StoreError) -> BSON? {
        guard let elements = try Self.arrayInput(input.evaluate(in: scope), code: 28651, operator: "$filter") else {
            return .null
        }
        var limit = Int.max
        if let limitNode, let value = try limitNode.evaluate(in: scope), value != .null {
            guard let n = value.int64Value, value.isNumber else {
                throw .location(
                    327_391, "$filter: limit must be represented as a 32-bit integral value: \(value.shellDescription)")
            }
            guard n > 0 else { throw .location(327_392, "$filter: limit must be greater than 0: \(n)") }
            limit = Int(clamping: n)
        }
        var inner = scope
        var output: [BSON] = []
        for element in elements where output.count < limit {
            inner.variables[name] = element
            if Expression.isTrue(try condition.evaluate(in: inner)) { output.append(element) }
        }
        return .array(output)
    }

    /// The elements of an array input; nil for null or missing; an error for anything else.
    private static func arrayInput(_ value: BSON?, code: StoreError.Code, operator name: String) throws(StoreError)
        -> [BSON]?
    {
        switch value {
        case nil, .null?, .undefined?: return nil
        case .array(let elements)?: return elements
        case let other?: throw .location(code, "input to \(name) must be an array not \(other.typeName)")
        }
    }

    private static func now() -> BSONDate {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return BSONDate(millisecondsSinceEpoch: Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000)
    }
}

/// Aggregation field paths: unlike query paths, a numeric component never indexes an array; an array on the
/// way yields the array of what each of its documents holds at the rest of the path.
enum AggregationFieldPath {
    static func resolve(_ value: BSON, _ path: ArraySlice<String>) -> BSON? {
        guard let first = path.first else { return value }
        switch value {
        case .document(let document):
            guard let child = document[first] else { return nil }
            return resolve(child, path.dropFirst())
        case .array(let elements):
            var output: [BSON] = []
            for element in elements {
                if case .document = element, let found = resolve(element, path) { output.append(found) }
            }
            return .array(output)
        default:
            return nil
        }
    }
}
