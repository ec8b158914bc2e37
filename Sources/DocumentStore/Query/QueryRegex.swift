import BSON

/// A compiled `$regex` (or `/pattern/options` value), evaluated by PCRE2 as on the server (see
/// `CompiledPattern`), compiled once per pattern and options (`PatternCache`).
struct QueryRegex: Sendable {
    let pattern: String
    /// Option letters, sorted, as `BSONRegularExpression` keeps them.
    let options: String
    private let compiled: CompiledPattern

    init(pattern: String, options: String) throws(StoreError) {
        if pattern.utf8.contains(0) {
            throw .badValue("Regular expression cannot contain an embedded null byte")
        }
        self.pattern = pattern
        self.options = String(options.sorted())
        compiled = try PatternCache.shared.pattern(pattern, options: self.options)
    }

    init(_ regex: BSONRegularExpression) throws(StoreError) {
        try self.init(pattern: regex.pattern, options: regex.options)
    }

    /// Strings and symbols match by pattern; a stored regex value matches when pattern and options are equal.
    /// Throws MongoDB's error when the match exceeds PCRE2's limits.
    func matches(_ value: BSON) throws(StoreError) -> Bool {
        switch value {
        case .string(let string), .symbol(let string):
            return try compiled.matches(string, operatorName: "$regex")
        case .regex(let regex):
            return regex.pattern == pattern && String(regex.options.sorted()) == options
        default:
            return false
        }
    }
}
