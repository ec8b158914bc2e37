import DocumentStore

extension DatabaseTriggerRunner {
    /// `ordered: byDocumentKey`: each document's events one at a time in commit order, up to `maxConcurrency`
    /// documents at once. An event is in flight (in the watermark) from when it is read until its function
    /// finished, so the saved position stays before the oldest unfinished event and a crash redelivers only from
    /// there. An event that keeps failing goes to the dead-letter queue, and its document's next event follows.
    func consumeByDocumentKey(_ cursor: ChangeFeed.Cursor, route: ChangeEventRoute, maxConcurrency: Int)
        async throws
    {
        var cursor = cursor
        let queues = DocumentQueues(maxConcurrency: maxConcurrency)
        try await withThrowingTaskGroup(of: Void.self) { group in
            // Document tasks added and not yet collected: ended ones are collected only when a slot is needed.
            var uncollected = 0
            while let entry = try await cursor.next() {
                guard let routed = try await deliverable(entry, route: route) else {
                    progress.skip(entry.sequence)
                    continue
                }
                if progress.isWaitingForStorage {
                    try await group.waitForAll()
                    uncollected = 0
                    if Task.isCancelled { return }
                }
                let work = DocumentQueues.Work(event: routed, entry: entry)
                // The key comes from the log's event: the route's `project` may have removed `documentKey`.
                let key = DocumentQueues.Key(entry.event)
                progress.begin(entry.sequence, waiting: true)
                while true {
                    let admission = queues.admit(work, key: key)
                    if admission == .queued { break }
                    if admission == .full || uncollected >= maxConcurrency {
                        // A slot frees when a document's task ends; at most `maxConcurrency` run, so when more are
                        // uncollected one of them has ended already.
                        _ = try await group.next()
                        uncollected -= 1
                        if admission == .full { continue }
                    }
                    progress.startWaiting()
                    group.addTask { await deliverDocument(from: work, key: key, queues: queues) }
                    uncollected += 1
                    break
                }
            }
        }
    }

    /// Delivers `first`, then the document's later events as they are queued, until none waits.
    private func deliverDocument(from first: DocumentQueues.Work, key: DocumentQueues.Key, queues: DocumentQueues)
        async
    {
        var work = first
        while true {
            var next: DocumentQueues.Work?
            let finished = await deliverUnordered(work.event, of: work.entry) {
                // Started before this event counts as finished, so the document never looks idle in between.
                next = queues.next(for: key)
                if next != nil { progress.startWaiting() }
            }
            guard finished else {
                // Stopping: what waits stays unfinished in the watermark, so a restart delivers it.
                progress.abandonWaiting(queues.close(key))
                return
            }
            guard let next else { return }
            work = next
        }
    }
}
