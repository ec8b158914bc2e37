import BSON

/// Reading the change log for change streams.
extension StoreCore {
    struct ChangeBatch: Sendable {
        var events: [ChangeEvent]
        /// The last sequence looked at; the next read starts after it.
        var position: Int64
        /// The stream was invalidated (its collection dropped or renamed, its database dropped).
        var invalidated: Bool
    }

    /// Where a new stream starts: after the token, or after the newest event now.
    func startingPosition(_ options: ChangeStreamOptions) throws(StoreError) -> Int64 {
        if let token = options.resumeAfter, token.isInvalidate {
            throw StoreError(
                code: .invalidResumeToken,
                message: "cannot resume a change stream after an invalidate event; use startAfter")
        }
        if options.startAfter == nil, options.resumeAfter == nil, let time = options.startAtOperationTime {
            return try position(before: time)
        }
        guard let token = options.startAfter ?? options.resumeAfter else { return try newestSequence() }
        try checkRetained(after: token.sequence)
        return token.sequence
    }

    /// The position just before the first kept event at or after `time`, read from the oldest entry on in batches.
    /// A time before the kept history (the oldest kept event is later and older ones were pruned) fails with
    /// ChangeStreamHistoryLost, as a resume does.
    private func position(before time: BSONTimestamp) throws(StoreError) -> Int64 {
        var position = prunedThrough
        var oldest = true
        while true {
            let batch = try engine.changes(after: position, limit: 512)
            guard let last = batch.last else { return try newestSequence() }
            for record in batch {
                let recorded = ChangeEventEncoding.clusterTime(of: record.event)
                guard recorded >= time else {
                    oldest = false
                    continue
                }
                if oldest, prunedThrough > 0, recorded > time {
                    throw .changeStreamHistoryLost(
                        "Resume of change stream was not possible, as the resume point \(time) may no longer be in "
                            + "the change log (history is kept after \(ResumeToken(sequence: prunedThrough))).")
                }
                return record.sequence - 1
            }
            position = last.sequence
        }
    }

    func checkRetained(after position: Int64) throws(StoreError) {
        try Self.checkRetained(after: position, prunedThrough: prunedThrough)
    }

    static func checkRetained(after position: Int64, prunedThrough: Int64) throws(StoreError) {
        if position < prunedThrough {
            throw .changeStreamHistoryLost(
                "Resume of change stream was not possible, as the resume point \(ResumeToken(sequence: position)) "
                    + "may no longer be in the change log (history is kept after \(ResumeToken(sequence: prunedThrough)))."
            )
        }
    }
}
