/// How far a database trigger may safely resume from: every change-log entry at or before `position` is
/// finished. Events are read in log order but may finish out of order (unordered triggers), so the
/// position stops just before the oldest event still in flight; a crash then redelivers that event (and
/// perhaps some finished after it) but never skips one.
struct Watermark: Sendable, Equatable {
    /// The last log sequence read from the stream.
    private(set) var scanned: Int64
    private(set) var inFlight: Set<Int64> = []

    init(position: Int64) {
        scanned = position
    }

    var position: Int64 { inFlight.min().map { $0 - 1 } ?? scanned }

    /// An entry read from the log that needs no delivery (another namespace, filtered out).
    mutating func skip(_ sequence: Int64) {
        scanned = max(scanned, sequence)
    }

    mutating func begin(_ sequence: Int64) {
        scanned = max(scanned, sequence)
        inFlight.insert(sequence)
    }

    mutating func finish(_ sequence: Int64) {
        inFlight.remove(sequence)
    }
}
