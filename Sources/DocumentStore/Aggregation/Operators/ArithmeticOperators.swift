import BSON

extension ExpressionOperator {
    static let arithmetic: [ExpressionOperator] = [
        ExpressionOperator("$add", variadic) { args throws(StoreError) in try ArithmeticOperators.add(args) },
        ExpressionOperator("$subtract", 2...2) { args throws(StoreError) in
            try ArithmeticOperators.subtract(args[0], args[1])
        },
        ExpressionOperator("$multiply", variadic) { args throws(StoreError) in
            try ArithmeticOperators.multiply(args)
        },
        ExpressionOperator("$divide", 2...2) { args throws(StoreError) in
            try ArithmeticOperators.divide(args[0], args[1])
        },
        ExpressionOperator("$mod", 2...2) { args throws(StoreError) in try ArithmeticOperators.mod(args[0], args[1]) },
        ExpressionOperator("$abs", 1...1) { args throws(StoreError) in try ArithmeticOperators.abs(args[0]) },
        ExpressionOperator("$ceil", 1...1) { args throws(StoreError) in
            try ArithmeticOperators.roundWhole(args[0], "$ceil", .up)
        },
        ExpressionOperator("$floor", 1...1) { args throws(StoreError) in
            try ArithmeticOperators.roundWhole(args[0], "$floor", .down)
        },
        ExpressionOperator("$round", 1...2) { args throws(StoreError) in
            try ArithmeticOperators.round(args, "$round", .toNearestOrEven)
        },
        ExpressionOperator("$trunc", 1...2) { args throws(StoreError) in
            try ArithmeticOperators.round(args, "$trunc", .towardZero)
        },
    ]
}

/// MongoDB's arithmetic type rules: the result has the widest operand type, int32 overflowing into int64 and
/// int64 into double; null or missing operands give null.
enum ArithmeticOperators {
    static func add(_ args: [BSON?]) throws(StoreError) -> BSON? {
        var sum = NumericSum()
        var date: BSONDate?
        for arg in args {
            switch arg {
            case nil, .null?, .undefined?:
                return .null
            case .datetime(let d)?:
                if date != nil { throw .location(16612, "only one date allowed in an $add expression") }
                date = d
            case let value? where value.isNumber:
                try sum.add(value, operatorName: "$add")
            case let value?:
                throw .location(16554, "$add only supports numeric or date types, not \(value.typeName)")
            }
        }
        guard let date else { return sum.result }
        let millis = try wholeMillis(sum.result, operatorName: "$add")
        let (total, overflow) = date.millisecondsSinceEpoch.addingReportingOverflow(millis)
        if overflow { throw .location(16612, "date overflow in $add") }
        return .datetime(BSONDate(millisecondsSinceEpoch: total))
    }

    static func subtract(_ lhs: BSON?, _ rhs: BSON?) throws(StoreError) -> BSON? {
        if lhs.isNullish || rhs.isNullish { return .null }
        switch (lhs!, rhs!) {
        case (.datetime(let a), .datetime(let b)):
            let (difference, overflow) = a.millisecondsSinceEpoch.subtractingReportingOverflow(b.millisecondsSinceEpoch)
            if overflow { throw .location(16556, "date overflow in $subtract") }
            return .int64(difference)
        case (.datetime(let a), let b) where b.isNumber:
            let millis = try wholeMillis(b, operatorName: "$subtract")
            let (result, overflow) = a.millisecondsSinceEpoch.subtractingReportingOverflow(millis)
            if overflow { throw .location(16556, "date overflow in $subtract") }
            return .datetime(BSONDate(millisecondsSinceEpoch: result))
        case (let a, let b) where a.isNumber && b.isNumber:
            return try binary(
                a, b, operatorName: "$subtract", integer: { $0.subtractingReportingOverflow($1) }, double: -)
        case (let a, let b):
            throw .location(16556, "can't $subtract \(b.typeName) from \(a.typeName)")
        }
    }

    static func multiply(_ args: [BSON?]) throws(StoreError) -> BSON? {
        var product: BSON = .int32(1)
        for arg in args {
            if arg.isNullish { return .null }
            guard let value = arg, value.isNumber else {
                throw .location(16555, "$multiply only supports numeric types, not \(typeName(arg))")
            }
            product = try binary(
                product, value, operatorName: "$multiply", integer: { $0.multipliedReportingOverflow(by: $1) },
                double: *)
        }
        return product
    }

    static func divide(_ lhs: BSON?, _ rhs: BSON?) throws(StoreError) -> BSON? {
        if lhs.isNullish || rhs.isNullish { return .null }
        guard let a = lhs, let b = rhs, a.isNumber, b.isNumber else {
            throw .location(16609, "$divide only supports numeric types, not \(typeName(lhs)) and \(typeName(rhs))")
        }
        if case .decimal128 = a { throw NumericSum.decimalUnsupported("$divide") }
        if case .decimal128 = b { throw NumericSum.decimalUnsupported("$divide") }
        let divisor = b.doubleValue ?? .nan
        if divisor == 0 { throw .location(16608, "can't $divide by zero") }
        return .double((a.doubleValue ?? .nan) / divisor)
    }

    static func mod(_ lhs: BSON?, _ rhs: BSON?) throws(StoreError) -> BSON? {
        if lhs.isNullish || rhs.isNullish { return .null }
        guard let a = lhs, let b = rhs, a.isNumber, b.isNumber else {
            throw .location(16611, "$mod only supports numeric types, not \(typeName(lhs)) and \(typeName(rhs))")
        }
        switch (a, b) {
        case (.decimal128, _), (_, .decimal128):
            throw NumericSum.decimalUnsupported("$mod")
        case (.double, _), (_, .double):
            let divisor = b.doubleValue ?? .nan
            if divisor == 0 { throw .location(16610, "can't $mod by zero") }
            return .double((a.doubleValue ?? .nan).truncatingRemainder(dividingBy: divisor))
        default:
            let x = a.int64Value ?? 0
            let y = b.int64Value ?? 0
            if y == 0 { throw .location(16610, "can't $mod by zero") }
            let remainder = x.remainderReportingOverflow(dividingBy: y).partialValue
            if case .int32 = a, case .int32 = b { return .int32(Int32(truncatingIfNeeded: remainder)) }
            return .int64(remainder)
        }
    }

    static func abs(_ arg: BSON?) throws(StoreError) -> BSON? {
        if arg.isNullish { return .null }
        switch arg! {
        case .int32(let i): return i == .min ? .int64(-Int64(i)) : .int32(Swift.abs(i))
        case .int64(let i):
            if i == .min { throw .location(28680, "can't take $abs of long long min") }
            return .int64(Swift.abs(i))
        case .double(let d): return .double(Swift.abs(d))
        case .decimal128: throw NumericSum.decimalUnsupported("$abs")
        case let other: throw .location(28765, "$abs only supports numeric types, not \(other.typeName)")
        }
    }

    static func roundWhole(_ arg: BSON?, _ name: String, _ rule: FloatingPointRoundingRule) throws(StoreError) -> BSON?
    {
        if arg.isNullish { return .null }
        switch arg! {
        case .int32, .int64: return arg
        case .double(let d): return .double(d.rounded(rule))
        case .decimal128: throw NumericSum.decimalUnsupported(name)
        case let other: throw .location(28765, "\(name) only supports numeric types, not \(other.typeName)")
        }
    }

    /// `$round` (half to even) and `$trunc` with an optional number of decimal places in -20...100.
    static func round(_ args: [BSON?], _ name: String, _ rule: FloatingPointRoundingRule) throws(StoreError) -> BSON? {
        if args[0].isNullish { return .null }
        var place: Int64 = 0
        if args.count == 2 {
            if args[1].isNullish { return .null }
            guard let p = args[1], p.isNumber, let whole = p.int64Value, (-20...100).contains(whole) else {
                throw .location(
                    51083,
                    "\(name) requires \"place\" argument to be an integer between -20 and 100, but got "
                        + (args[1]?.shellDescription ?? "missing"))
            }
            place = whole
        }
        switch args[0]! {
        case .int32, .int64:
            guard place < 0 else { return args[0] }
            let value = args[0]!.int64Value!
            if place < -18 { return args[0]!.zeroOfSameType }
            var scale: Int64 = 1
            for _ in 0 ..< -place { scale *= 10 }
            let rounded = (Double(value) / Double(scale)).rounded(rule) * Double(scale)
            // Rounding an integer to tens, hundreds, … is exact when done on the quotient and remainder.
            let quotient = value / scale
            let remainder = value % scale
            var q = quotient
            if rule == .toNearestOrEven {
                let twice = Swift.abs(remainder) * 2
                if twice > scale || (twice == scale && quotient % 2 != 0) { q += value < 0 ? -1 : 1 }
            }
            let (result, overflow) = q.multipliedReportingOverflow(by: scale)
            if overflow { return .double(rounded) }
            if case .int32 = args[0]!, let small = Int32(exactly: result) { return .int32(small) }
            return .int64(result)
        case .double(let d):
            guard d.isFinite else { return .double(d) }
            if place >= 0 {
                let scale = pow10(Int(place))
                let scaled = d * scale
                guard scaled.isFinite else { return .double(d) }
                return .double(scaled.rounded(rule) / scale)
            }
            let scale = pow10(Int(-place))
            return .double((d / scale).rounded(rule) * scale)
        case .decimal128: throw NumericSum.decimalUnsupported(name)
        case let other: throw .location(51081, "\(name) only supports numeric types, not \(other.typeName)")
        }
    }

    private static func pow10(_ n: Int) -> Double {
        var result = 1.0
        for _ in 0..<n { result *= 10 }
        return result
    }

    /// Two numbers combined with widening: integer overflow falls back to doubles.
    static func binary(
        _ a: BSON, _ b: BSON, operatorName: String, integer: (Int64, Int64) -> (partialValue: Int64, overflow: Bool),
        double: (Double, Double) -> Double
    ) throws(StoreError) -> BSON {
        switch (a, b) {
        case (.decimal128, _), (_, .decimal128):
            throw NumericSum.decimalUnsupported(operatorName)
        case (.double, _), (_, .double):
            return .double(double(a.doubleValue ?? .nan, b.doubleValue ?? .nan))
        default:
            let x = a.int64Value ?? 0
            let y = b.int64Value ?? 0
            let (result, overflow) = integer(x, y)
            if overflow { return .double(double(Double(x), Double(y))) }
            if case .int32 = a, case .int32 = b, let small = Int32(exactly: result) { return .int32(small) }
            return .int64(result)
        }
    }

    /// A number added to or taken from a date, as whole milliseconds (doubles round half away from zero).
    private static func wholeMillis(_ value: BSON, operatorName: String) throws(StoreError) -> Int64 {
        switch value {
        case .int32(let i): return Int64(i)
        case .int64(let i): return i
        case .double(let d):
            let rounded = d.rounded(.toNearestOrAwayFromZero)
            guard let millis = Int64(exactly: rounded) else {
                throw .location(16612, "date overflow in \(operatorName)")
            }
            return millis
        default: throw NumericSum.decimalUnsupported(operatorName)
        }
    }
}

extension BSON {
    fileprivate var zeroOfSameType: BSON {
        if case .int32 = self { return .int32(0) }
        return .int64(0)
    }
}
