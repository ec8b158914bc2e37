import BSON

/// A value keyed by MongoDB equality (`BSON.compare == 0`), so that `1`, `1.0` and `Int64(1)` are one
/// `$group` key, one `$addToSet` member, one `$lookup` match.
struct EquivalenceKey: Hashable, Sendable {
    let value: BSON

    init(_ value: BSON) { self.value = value }

    static func == (lhs: EquivalenceKey, rhs: EquivalenceKey) -> Bool {
        BSON.compare(lhs.value, rhs.value) == 0
    }

    func hash(into hasher: inout Hasher) { Self.hash(value, into: &hasher) }

    /// Hashes only what `BSON.compare` looks at, so that equivalent values hash alike.
    private static func hash(_ value: BSON, into hasher: inout Hasher) {
        hasher.combine(value.canonicalTypeOrder)
        switch value {
        case .int32, .int64, .double, .decimal128:
            let d = value.doubleValue ?? .nan
            hasher.combine(d.isNaN ? Double.nan.bitPattern : (d == 0 ? 0 : d.bitPattern))
        case .string(let s), .symbol(let s):
            hasher.combine(s)
        case .document(let document):
            for (key, child) in document {
                hasher.combine(key)
                hash(child, into: &hasher)
            }
        case .array(let elements):
            for element in elements { hash(element, into: &hasher) }
        case .javascriptWithScope(let code):
            hasher.combine(code.code)
        default:
            hasher.combine(value)
        }
    }
}
