import BSON

/// `$inc` and `$mul` with the server's numeric type rules: int32 with int32 stays int32 and widens to
/// int64 when the result overflows; anything with int64 is int64, and an int64 overflow is an error;
/// anything with a double is a double. Decimal128 arithmetic is not implemented: Switchyard keeps
/// decimals bit-exact but cannot compute with them, so it refuses rather than round through Double.
extension UpdateModifier {
    enum ArithmeticOperation {
        case add
        case multiply

        var operatorName: String {
            switch self {
            case .add: "$inc"
            case .multiply: "$mul"
            }
        }
    }

    static func arithmetic(
        _ operation: ArithmeticOperation, _ value: BSON?, _ operand: BSON, at path: [String],
        in application: UpdateApplication
    ) throws(StoreError) -> FieldChange {
        guard let value else {
            // A missing field becomes the increment, or a zero of the multiplier's type.
            switch operation {
            case .add: return .set(operand)
            case .multiply: return .set(zero(like: operand))
            }
        }
        guard value.isNumber else {
            throw .typeMismatch(
                "Cannot apply \(operation.operatorName) to a value of non-numeric type. {\(application.documentIDText)} has the field '\(path.last ?? "")' of non-numeric type \(value.typeName)"
            )
        }
        if case .decimal128 = value { throw decimalUnsupported(operation, path) }
        if case .decimal128 = operand { throw decimalUnsupported(operation, path) }
        guard let result = compute(operation, value, operand) else {
            throw .badValue(
                "Failed to apply \(operation.operatorName) operations to current value (\(value.arithmeticMessageText)) for document {\(application.documentIDText)}"
            )
        }
        return result == value ? .keep : .set(result)
    }

    private static func zero(like operand: BSON) -> BSON {
        switch operand {
        case .int32: .int32(0)
        case .int64: .int64(0)
        case .decimal128: .decimal128(Decimal128(high: 0x3040_0000_0000_0000, low: 0))
        default: .double(0)
        }
    }

    /// The result, or nil when an int64 result overflows.
    static func compute(_ operation: ArithmeticOperation, _ lhs: BSON, _ rhs: BSON) -> BSON? {
        switch (lhs, rhs) {
        case (.int32(let a), .int32(let b)):
            let (result, overflow) =
                operation == .add ? a.addingReportingOverflow(b) : a.multipliedReportingOverflow(by: b)
            guard overflow else { return .int32(result) }
            return compute(operation, .int64(Int64(a)), .int64(Int64(b)))
        case (.int32, .int64), (.int64, .int32), (.int64, .int64):
            guard let a = lhs.int64Value, let b = rhs.int64Value else { return nil }
            let (result, overflow) =
                operation == .add ? a.addingReportingOverflow(b) : a.multipliedReportingOverflow(by: b)
            return overflow ? nil : .int64(result)
        default:
            guard let a = lhs.doubleValue, let b = rhs.doubleValue else { return nil }
            return .double(operation == .add ? a + b : a * b)
        }
    }

    private static func decimalUnsupported(_ operation: ArithmeticOperation, _ path: [String]) -> StoreError {
        .badValue(
            "Cannot apply \(operation.operatorName) to '\(path.joined(separator: "."))': decimal128 arithmetic is not supported by Switchyard"
        )
    }
}
