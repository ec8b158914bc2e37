import BSON

extension DocumentStore {
    /// The events logged after `token`, from at most `limit` log entries, read without waiting for more (a change
    /// stream waits at the log's end): what counting a backlog needs. `position` is the last sequence read,
    /// past entries no event came from (internal databases), so the next read starts after it; it equals
    /// `token`'s sequence once the log's end is reached.
    package func changes(after token: ResumeToken, limit: Int, options: ChangeStreamOptions = .init()) async throws
        -> (events: [ChangeEvent], position: Int64)
    {
        let batch = try await worker.query { view throws(StoreError) in
            try view.readChanges(after: token.sequence, scope: .store, options: options, pipeline: nil, limit: limit)
        }
        return (batch.events, batch.position)
    }
}

extension DocumentStore {
    /// The sequence the retained change log starts after (0 until entries were pruned): the earliest position
    /// `changes(after:)` accepts.
    package func changeLogStart() async throws -> Int64 {
        try await worker.query { view throws(StoreError) in try view.engine.metadata("prunedThrough") ?? 0 }
    }
}
