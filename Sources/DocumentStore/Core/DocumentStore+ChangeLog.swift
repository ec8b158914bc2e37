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

extension DocumentStore {
    /// The events of the retained change-log entries that writes tagged with each of `origins` appended
    /// (`StoreWriteOrigin`), in log order, by origin (an origin that wrote nothing retained is missing), rendered
    /// for `options` as a store-wide stream would render them (without the tag), in one read.
    package func changes(origins: [String], options: ChangeStreamOptions = .init()) async throws
        -> [String: [ChangeEvent]]
    {
        try await worker.query { view throws(StoreError) in
            var events: [String: [ChangeEvent]] = [:]
            for origin in origins {
                let records = try view.engine.changes(origin: origin)
                guard !records.isEmpty else { continue }
                events[origin] =
                    try StoreView.changeBatch(
                        records, after: 0, scope: .store, options: options, pipeline: nil, view: view
                    ).events
            }
            return events
        }
    }

    /// The change-log sequence after which every entry kept its writes' tag: the entries up to it were appended
    /// before the store kept tags (a data directory of an earlier layout), so their writes cannot be told apart.
    package func changeOriginsTaggedAfter() async throws -> Int64 {
        try await worker.query { view throws(StoreError) in try view.engine.originsTaggedAfter() }
    }
}
