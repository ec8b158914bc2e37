/// Finds the known word a misspelling was probably meant to be, for "did you mean …?" hints.
/// Distance is Levenshtein (with swapped neighbours counting as one edit) over case-folded text, so `insrt` suggests `INSERT` and `Collection` suggests
/// `collection`; a suggestion is offered only when the words are close for their length.
package enum ClosestMatch {
    /// The candidate closest to `word`, or nil when none is close enough to be a plausible typo.
    package static func suggestion(for word: String, among candidates: some Sequence<String>) -> String? {
        let folded = Array(word.lowercased().unicodeScalars)
        guard !folded.isEmpty, folded.count <= 200 else { return nil }
        let allowed = max(1, min(3, folded.count / 3))
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let other = Array(candidate.lowercased().unicodeScalars)
            guard abs(other.count - folded.count) <= allowed, other.count <= 200 else { continue }
            let distance = levenshtein(folded, other)
            if distance <= allowed, distance < max(folded.count, other.count), distance < (best?.distance ?? .max) {
                best = (candidate, distance)
            }
        }
        return best?.candidate
    }

    /// `" (did you mean 'x'?)"` or an empty string, ready to append to a message.
    static func hint(for word: String, among candidates: some Sequence<String>) -> String {
        suggestion(for: word, among: candidates).map { " (did you mean '\($0)'?)" } ?? ""
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps.
    static func levenshtein(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}
