import Synchronization

/// Compiled patterns by pattern and options, shared by every filter that uses them: a trigger's match filter,
/// or a query the client repeats, compiles its `$regex` once. Bounded: past `capacity` entries the least recently
/// used pattern is dropped (filters still holding it keep it alive).
final class PatternCache: Sendable {
    static let shared = PatternCache(capacity: 512)

    private struct Key: Hashable {
        let pattern: String
        let options: String
    }

    private struct Entries {
        var patterns: [Key: (pattern: CompiledPattern, lastUse: UInt64)] = [:]
        var clock: UInt64 = 0
    }

    private let capacity: Int
    private let entries = Mutex(Entries())

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The compiled pattern, compiling it on first use; a pattern that fails to compile is not kept.
    func pattern(_ pattern: String, options: String) throws(StoreError) -> CompiledPattern {
        let key = Key(pattern: pattern, options: options)
        if let found = entries.withLock({ entries -> CompiledPattern? in
            entries.clock += 1
            entries.patterns[key]?.lastUse = entries.clock
            return entries.patterns[key]?.pattern
        }) {
            return found
        }
        // Compiled outside the lock: a long pattern must not hold up every other filter's lookup.
        let compiled = try CompiledPattern(pattern: pattern, options: options)
        return entries.withLock { entries in
            entries.clock += 1
            if let raced = entries.patterns[key] { return raced.pattern }
            if entries.patterns.count >= capacity,
                let oldest = entries.patterns.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
            {
                entries.patterns.removeValue(forKey: oldest)
            }
            entries.patterns[key] = (compiled, entries.clock)
            return compiled
        }
    }

    /// How many patterns are kept (for tests of the bound).
    var count: Int { entries.withLock { $0.patterns.count } }
}
