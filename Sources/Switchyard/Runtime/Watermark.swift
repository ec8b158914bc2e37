/// How far a database trigger may safely resume from: every change-log entry at or before `position` is
/// finished. Events are read in log order but may finish out of order (unordered triggers), so the
/// position stops just before the oldest event still in flight; a crash then redelivers that event (and
/// perhaps some finished after it) but never skips one.
struct Watermark: Sendable, Equatable {
    /// The last log sequence read from the stream.
    private(set) var scanned: Int64
    /// Ascending. Events begin in log order, so a begin appends; at most `maxConcurrency` long, so a
    /// linear search beats hashing (this runs twice per event per trigger).
    private(set) var inFlight: [Int64] = []

    init(position: Int64) {
        scanned = position
    }

    var position: Int64 { inFlight.first.map { $0 - 1 } ?? scanned }

    /// An entry read from the log that needs no delivery (another namespace, filtered out).
    mutating func skip(_ sequence: Int64) {
        scanned = max(scanned, sequence)
    }

    mutating func begin(_ sequence: Int64) {
        scanned = max(scanned, sequence)
        guard !inFlight.contains(sequence) else { return }
        inFlight.insert(sequence, at: inFlight.firstIndex { $0 > sequence } ?? inFlight.endIndex)
    }

    mutating func finish(_ sequence: Int64) {
        if let index = inFlight.firstIndex(of: sequence) { inFlight.remove(at: index) }
    }
}
