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
        // Subscribe before the first read, so a commit between that read and the wait still wakes us.
        Iterator(stream: self, wakeups: worker.notifier.subscribe().makeAsyncIterator(), position: start)
    }

    public struct Iterator: AsyncIteratorProtocol {
        let stream: ChangeStream
        var wakeups: AsyncStream<Int64>.Iterator
        var position: Int64
        var buffer: [ChangeEvent] = []
        var finished = false

        public mutating func next() async throws -> ChangeEvent? {
            while true {
                if !buffer.isEmpty { return buffer.removeFirst() }
                if finished || Task.isCancelled { return nil }
                let (scope, options, stages, after) = (stream.scope, stream.options, stream.pipeline, position)
                let batch = try await stream.worker.query { view throws(StoreError) in
                    try view.readChanges(
                        after: after, scope: scope, options: options,
                        pipeline: stages.isEmpty ? nil : try Pipeline(stages), limit: options.batchSize)
                }
                let caughtUp = batch.position == position
                position = batch.position
                buffer = batch.events
                if batch.invalidated { finished = true }
                if buffer.isEmpty && caughtUp {
                    guard await wakeups.next() != nil else { return nil }
                }
            }
        }
    }
}
