/// When a read must give up (MongoDB's `maxTimeMS`), checked as the read goes: before each candidate document,
/// before each pipeline stage, and for each document a `$match` stage tests.
struct ReadDeadline: Sendable {
    let instant: ContinuousClock.Instant

    /// Fails the read with MongoDB's error once the deadline has passed.
    func check() throws(StoreError) {
        guard ContinuousClock.now >= instant else { return }
        throw .maxTimeMSExpired("operation exceeded time limit")
    }
}
