import BSON

/// An operator whose arguments are all evaluated before it runs (`$add`, `$concat`, `$size`, …). Arguments
/// arrive as nil when missing.
struct ExpressionOperator: Sendable {
    let name: String
    let arity: ClosedRange<Int>
    let apply: @Sendable ([BSON?]) throws(StoreError) -> BSON?

    init(
        _ name: String, _ arity: ClosedRange<Int>,
        _ apply: @escaping @Sendable ([BSON?]) throws(StoreError) -> BSON?
    ) {
        self.name = name
        self.arity = arity
        self.apply = apply
    }

    static let variadic = 0...Int.max

    func checkArity(_ count: Int) throws(StoreError) {
        guard !arity.contains(count) else { return }
        if arity.lowerBound == arity.upperBound {
            throw .location(
                16020, "Expression \(name) takes exactly \(arity.lowerBound) arguments. \(count) were passed in.")
        }
        if arity.upperBound == Int.max {
            throw .location(
                16020, "Expression \(name) takes at least \(arity.lowerBound) arguments. \(count) were passed in.")
        }
        throw .location(
            28667,
            "Expression \(name) takes at least \(arity.lowerBound) arguments, and at most \(arity.upperBound). "
                + "\(count) were passed in.")
    }

    /// Every operator evaluated eagerly, by name.
    static let named: [String: ExpressionOperator] = {
        var table: [String: ExpressionOperator] = [:]
        for op in arithmetic + comparison + strings + conversions + arrays + objects {
            table[op.name] = op
        }
        return table
    }()
}

/// The BSON type name of a possibly missing value, as error messages spell it.
func typeName(_ value: BSON?) -> String { value?.typeName ?? "missing" }

extension Optional where Wrapped == BSON {
    /// Null, undefined or missing: what most operators answer with null.
    var isNullish: Bool {
        switch self {
        case nil, .null?, .undefined?: true
        default: false
        }
    }
}
