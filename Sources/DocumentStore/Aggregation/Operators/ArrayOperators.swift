import BSON

extension ExpressionOperator {
    static let arrays: [ExpressionOperator] = [
        ExpressionOperator("$size", 1...1) { args throws(StoreError) in
            guard case .array(let elements)? = args[0] else {
                throw .location(
                    17124, "The argument to $size must be an array. Type of argument: \(typeName(args[0]))")
            }
            return .int32(Int32(clamping: elements.count))
        },
        ExpressionOperator("$isArray", 1...1) { args in
            if case .array? = args[0] { return .bool(true) }
            return .bool(false)
        },
        ExpressionOperator("$in", 2...2) { args throws(StoreError) in
            guard case .array(let elements)? = args[1] else {
                throw .location(40081, "$in requires an array as a second argument, found: \(typeName(args[1]))")
            }
            let needle = args[0] ?? .undefined
            return .bool(elements.contains { BSON.compare($0, needle) == 0 })
        },
        ExpressionOperator("$arrayElemAt", 2...2) { args throws(StoreError) in
            try ArrayOperators.elementAt(args[0], args[1])
        },
        ExpressionOperator("$concatArrays", variadic) { args throws(StoreError) in
            var output: [BSON] = []
            for arg in args {
                if arg.isNullish { return .null }
                guard case .array(let elements)? = arg else {
                    throw .location(28664, "$concatArrays only supports arrays, not \(typeName(arg))")
                }
                output += elements
            }
            return .array(output)
        },
        ExpressionOperator("$first", 1...1) { args throws(StoreError) in try ArrayOperators.end(args[0], "$first") },
        ExpressionOperator("$last", 1...1) { args throws(StoreError) in try ArrayOperators.end(args[0], "$last") },
        ExpressionOperator("$setUnion", variadic) { args throws(StoreError) in
            var seen = Set<EquivalenceKey>()
            var output: [BSON] = []
            for arg in args {
                if arg.isNullish { return .null }
                guard case .array(let elements)? = arg else {
                    throw .location(
                        17043, "All operands of $setUnion must be arrays. One argument is of type: \(typeName(arg))")
                }
                for element in elements where seen.insert(EquivalenceKey(element)).inserted { output.append(element) }
            }
            return .array(output)
        },
        ExpressionOperator("$sum", variadic) { args throws(StoreError) in
            var sum = NumericSum()
            for value in ArrayOperators.operands(args) where value.isNumber { try sum.add(value, operatorName: "$sum") }
            return sum.result
        },
        ExpressionOperator("$avg", variadic) { args throws(StoreError) in
            var sum = NumericSum()
            var count = 0
            for value in ArrayOperators.operands(args) where value.isNumber {
                try sum.add(value, operatorName: "$avg")
                count += 1
            }
            return count == 0 ? .null : .double(sum.doubleValue / Double(count))
        },
        ExpressionOperator("$min", variadic) { args in ArrayOperators.extreme(args, keepIf: { $0 < 0 }) },
        ExpressionOperator("$max", variadic) { args in ArrayOperators.extreme(args, keepIf: { $0 > 0 }) },
    ]
}

enum ArrayOperators {
    /// What `$sum`, `$avg`, `$min` and `$max` range over: the elements of a lone array operand, else the
    /// operands themselves (arrays among several operands are not looked into).
    static func operands(_ args: [BSON?]) -> [BSON] {
        if args.count == 1, case .array(let elements)? = args[0] { return elements }
        return args.compactMap { $0 }
    }

    static func extreme(_ args: [BSON?], keepIf better: (Int) -> Bool) -> BSON {
        var best: BSON?
        for value in operands(args) {
            switch value {
            case .null, .undefined: continue
            default:
                if let current = best, !better(BSON.compare(value, current)) { continue }
                best = value
            }
        }
        return best ?? .null
    }

    static func elementAt(_ array: BSON?, _ index: BSON?) throws(StoreError) -> BSON? {
        if array.isNullish || index.isNullish { return .null }
        guard case .array(let elements)? = array else {
            throw .location(28689, "$arrayElemAt's first argument must be an array, but is \(typeName(array))")
        }
        guard let i = index, i.isNumber else {
            throw .location(28690, "$arrayElemAt's second argument must be a numeric value, but is \(typeName(index))")
        }
        guard let whole = i.int64Value, let position = Int32(exactly: whole) else {
            throw .location(
                28691, "$arrayElemAt's second argument must be representable as a 32-bit integer: \(i.shellDescription)"
            )
        }
        let offset = position < 0 ? elements.count + Int(position) : Int(position)
        guard elements.indices.contains(offset) else { return nil }
        return elements[offset]
    }

    static func end(_ array: BSON?, _ name: String) throws(StoreError) -> BSON? {
        if array.isNullish { return .null }
        guard case .array(let elements)? = array else {
            throw .location(28689, "\(name)'s argument must be an array, but is \(typeName(array))")
        }
        return name == "$first" ? elements.first : elements.last
    }
}
