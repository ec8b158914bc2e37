import BSON

/// A condition on one value reached by a path (`$gt: 5`, `$in: […]`, `$size: 2`). `nil` stands for a
/// missing value.
enum QueryPredicate: Sendable {
    case compare(ComparisonOperator, BSON)
    case `in`(QueryValueSet)
    case regex(QueryRegex)
    case exists
    case type(BSONTypeSet)
    case size(Int)
    case mod(divisor: Int64, remainder: Int64)
    case bits(BitTest, positions: [Int])
    /// `$elemMatch` with a filter on documents (`{results: {$elemMatch: {product: "xyz"}}}`).
    case elemMatchDocument(QueryMatcher)
    /// `$elemMatch` with operators on the elements themselves (`{$elemMatch: {$gte: 80, $lt: 85}}`).
    case elemMatchValue([QueryMatcher])

    enum ComparisonOperator: Sendable {
        case eq, lt, lte, gt, gte
    }

    enum BitTest: Sendable {
        case allSet, allClear, anySet, anyClear
    }

    /// `$size` and `$elemMatch` look at an array as a whole; everything else also at each of its elements.
    var leafArrays: FieldPath.LeafArrays {
        switch self {
        case .size, .elemMatchDocument, .elemMatchValue: .arrayOnly
        default: .elementsThenArray
        }
    }

    func matches(_ value: BSON?, innerPosition: inout Int?) throws(StoreError) -> Bool {
        switch self {
        case .compare(let op, let operand):
            return Self.compare(value, op, operand)
        case .in(let set):
            return try set.contains(value)
        case .regex(let regex):
            guard let value else { return false }
            return try regex.matches(value)
        case .exists:
            return value != nil
        case .type(let types):
            guard let value else { return false }
            return types.contains(value)
        case .size(let size):
            guard case .array(let elements) = value else { return false }
            return elements.count == size
        case .mod(let divisor, let remainder):
            guard let dividend = value?.truncatedInt64 else { return false }
            // Int64.min % -1 overflows; its remainder is 0.
            let result = divisor == -1 ? 0 : dividend % divisor
            return result == remainder
        case .bits(let test, let positions):
            guard let value else { return false }
            return Self.testBits(value, test, positions)
        case .elemMatchDocument(let filter):
            guard case .array(let elements) = value else { return false }
            for (offset, element) in elements.enumerated() {
                let document: BSONDocument
                switch element {
                case .document(let child): document = child
                case .array(let nested): document = BSONDocument(nested.enumerated().map { (String($0), $1) })
                default: continue
                }
                var ignored: Int? = nil
                if try filter.matches(document, position: &ignored) {
                    innerPosition = offset
                    return true
                }
            }
            return false
        case .elemMatchValue(let conditions):
            guard case .array(let elements) = value else { return false }
            elements: for (offset, element) in elements.enumerated() {
                for condition in conditions where try !condition.matchesValue(element) { continue elements }
                innerPosition = offset
                return true
            }
            return false
        }
    }

    /// Comparison within MongoDB's type brackets: `{$gt: 5}` only ever matches numbers. A missing value
    /// compares like null, and MinKey/MaxKey bound every type.
    static func compare(_ value: BSON?, _ op: ComparisonOperator, _ operand: BSON) -> Bool {
        guard let value else {
            switch operand {
            case .null: return op == .eq || op == .lte || op == .gte
            case .maxKey: return op == .lt || op == .lte
            case .minKey: return op == .gt || op == .gte
            default: return false
            }
        }
        if value.canonicalTypeOrder != operand.canonicalTypeOrder {
            switch operand {
            case .maxKey: return op == .lt || op == .lte
            case .minKey: return op == .gt || op == .gte
            default: return false
            }
        }
        if op != .eq, value.isNaN || operand.isNaN {
            // NaN equals NaN and is otherwise unordered in queries.
            return (op == .lte || op == .gte) && value.isNaN && operand.isNaN
        }
        let order = BSON.compare(value, operand)
        switch op {
        case .eq: return order == 0
        case .lt: return order < 0
        case .lte: return order <= 0
        case .gt: return order > 0
        case .gte: return order >= 0
        }
    }

    private static func testBits(_ value: BSON, _ test: BitTest, _ positions: [Int]) -> Bool {
        let word: Int64
        switch value {
        case .int32(let i): word = Int64(i)
        case .int64(let i): word = i
        case .double, .decimal128:
            guard let d = value.doubleValue, let i = Int64(exactly: d) else { return false }
            word = i
        case .binary(let binary):
            // Bit n is bit n % 8 of byte n / 8; positions past the data read as clear.
            return evaluate(test, positions) { position in
                let byte = position / 8
                return byte < binary.data.count && binary.data[byte] & (1 << UInt8(position % 8)) != 0
            }
        default:
            return false
        }
        // Numbers are sign-extended: positions past 63 read the sign bit.
        return evaluate(test, positions) { position in word & (1 << Int64(min(position, 63))) != 0 }
    }

    private static func evaluate(_ test: BitTest, _ positions: [Int], isSet: (Int) -> Bool) -> Bool {
        switch test {
        case .allSet: return positions.allSatisfy(isSet)
        case .allClear: return !positions.contains(where: isSet)
        case .anySet: return positions.contains(where: isSet)
        case .anyClear: return !positions.allSatisfy(isSet)
        }
    }
}

extension BSON {
    var isNaN: Bool {
        switch self {
        case .double(let d): d.isNaN
        case .decimal128(let d): d.parts == .nan
        default: false
        }
    }

    /// The value truncated toward zero as `$mod` reads its dividend; nil for non-numbers, NaN, infinities
    /// and values outside Int64.
    var truncatedInt64: Int64? {
        switch self {
        case .int32(let i): return Int64(i)
        case .int64(let i): return i
        case .double, .decimal128:
            guard let d = doubleValue, d.isFinite else { return nil }
            return Int64(exactly: d.rounded(.towardZero))
        default: return nil
        }
    }
}
