import BSON

/// What padding an array to a far index would cost, counted before any null is built (see `DocumentSizeBudget`).
extension BSON {
    /// The bytes of `count` nulls appended to an array holding `start` elements (their keys are their indexes).
    static func paddingSize(from start: Int, count: Int) -> Int {
        // Keys of d digits run from 10^(d-1) to 10^d - 1: sums the keys' lengths a digit count at a time.
        var size = 0
        var index = start
        let end = start + count
        while index < end {
            let digits = arrayKeyLength(index)
            var nextWidth = 1
            for _ in 0..<digits { nextWidth *= 10 }
            let upTo = Swift.min(end, nextWidth)
            size += (upTo - index) * elementOverhead(keyBytes: digits)
            index = upTo
        }
        return size
    }
}
