import BSON

/// A change stream: replays the change log after its starting point, then follows new commits live,
/// with no gap and no duplicate (the log is the only source of events; commits only wake the stream).
/// Ends after an `invalidate` event, when the store closes, or when the consuming task is cancelled.
public struct ChangeStream: AsyncSequence, Sendable {
    public typealias Element = ChangeEvent

    let worker: StoreWorker
    let scope: ChangeStreamScope
    let options: ChangeStreamOptions
    let pipeline: [BSONDocument]
    let start: Int64

    /// The token after which this stream starts: resuming from it sees exactly this stream's events.
    public var startingPoint: ResumeToken { ResumeToken(sequence: start) }

    public func makeAsyncIterator() -> Iterator {
        // Subscribed from the start, so that the entries committed after `start` are kept in memory for it.
        Iterator(stream: self, subscription: worker.notifier.subscribe(), position: start)
    }

    public struct Iterator: AsyncIteratorProtocol {
        let stream: ChangeStream
        let subscription: ChangeNotifier.Subscription
        var position: Int64
        /// The events read and not yet returned, the next one last: taking the first of a batch moved every event
        /// after it, which cost a stream catching up on a backlog as much as decoding its events.
        var buffer: [ChangeEvent] = []
        var finished = false

        public mutating func next() async throws -> ChangeEvent? {
            while true {
                if let event = buffer.popLast() { return event }
                if finished || Task.isCancelled { return nil }
                // Following the log's end: the newest entries come from memory, with no read of the log.
                if readsRecent {
                    switch stream.worker.notifier.recent(after: position, limit: stream.options.batchSize) {
                    case .changes(let changes, let prunedThrough):
                        try StoreCore.checkRetained(after: position, prunedThrough: prunedThrough)
                        let (scope, options, after) = (stream.scope, stream.options, position)
                        if options.fullDocument == .updateLookup, changes.contains(where: { $0.insert == nil }) {
                            // Only the lookups read the store: the entries themselves are in memory.
                            take(
                                try await stream.worker.query { view throws(StoreError) in
                                    try StoreView.changeBatch(
                                        committed: changes, after: after, scope: scope, options: options, view: view)
                                })
                        } else {
                            take(
                                try StoreView.changeBatch(
                                    committed: changes, after: after, scope: scope, options: options, view: nil))
                        }
                        continue
                    case .caughtUp(let prunedThrough):
                        try StoreCore.checkRetained(after: position, prunedThrough: prunedThrough)
                        guard await subscription.wait(after: position) else { return nil }
                        continue
                    case .unavailable:
                        break
                    }
                }
                let (scope, options, stages, after) = (stream.scope, stream.options, stream.pipeline, position)
                let batch = try await stream.worker.query { view throws(StoreError) in
                    try view.readChanges(
                        after: after, scope: scope, options: options,
                        pipeline: stages.isEmpty ? nil : try Pipeline(stages), limit: options.batchSize)
                }
                let caughtUp = batch.position == position
                take(batch)
                if buffer.isEmpty && caughtUp {
                    guard await subscription.wait(after: position) else { return nil }
                }
            }
        }

        /// Whether this stream may read the newest entries from memory: not when a pipeline runs over them, since
        /// its stages may read the store's documents. `updateLookup` reads only the updated documents from the store.
        private var readsRecent: Bool { stream.pipeline.isEmpty }

        private mutating func take(_ batch: StoreCore.ChangeBatch) {
            position = batch.position
            buffer = batch.events
            buffer.reverse()
            if batch.invalidated { finished = true }
        }
    }
}
