import BSON

/// A running sum with MongoDB's widening: int32 stays int32 until it overflows into int64, int64 overflows
/// into double, and one double makes the result a double.
struct NumericSum: Sendable {
    enum Width: Int, Comparable {
        case int32, int64, double
        static func < (lhs: Width, rhs: Width) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    private(set) var width = Width.int32
    private var integer: Int64 = 0
    private var double: Double = 0

    /// Adds a number; `operatorName` names the operator in the error for decimals.
    mutating func add(_ value: BSON, operatorName: String) throws(StoreError) {
        switch value {
        case .int32(let i): addInteger(Int64(i))
        case .int64(let i):
            if width == .int32 { width = .int64 }
            addInteger(i)
        case .double(let d):
            if width != .double {
                double = Double(integer)
                width = .double
            }
            double += d
        case .decimal128: throw NumericSum.decimalUnsupported(operatorName)
        default: break
        }
    }

    private mutating func addInteger(_ i: Int64) {
        if width == .double {
            double += Double(i)
            return
        }
        let (sum, overflow) = integer.addingReportingOverflow(i)
        if overflow {
            double = Double(integer) + Double(i)
            width = .double
        } else {
            integer = sum
        }
    }

    var result: BSON {
        switch width {
        case .int32: Int32(exactly: integer).map { .int32($0) } ?? .int64(integer)
        case .int64: .int64(integer)
        case .double: .double(double)
        }
    }

    var doubleValue: Double { width == .double ? double : Double(integer) }

    static func decimalUnsupported(_ operatorName: String) -> StoreError {
        .badValue("\(operatorName): decimal128 arithmetic is not supported")
    }
}
