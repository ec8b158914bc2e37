import BSON
import DocumentStore

extension TriggerRuntime {
    /// How many change-log entries a status reads to count a trigger's pending events; entries past these are
    /// counted without being read, so a status never reads a huge backlog.
    static let pendingScanLimit = 10_000

    /// The change-log entries after `position`, up to `logEnd`, that `trigger` receives: its namespace and
    /// operation types, and its `match` (on the event as the function would get it, the current document
    /// looked up where `fullDocument` asks for it), so the count is the trigger's own lag, not the log's.
    func pendingEvents(of trigger: DatabaseTrigger, after position: Int64, through logEnd: Int64) async throws
        -> Int
    {
        let route = try ChangeEventRoute(trigger)
        let options = ChangeStreamOptions(
            fullDocumentBeforeChange: trigger.fullDocumentBeforeChange ? .whenAvailable : .off)
        var pending = 0
        var read = position
        while read < logEnd {
            if read - position >= Self.pendingScanLimit { return pending + Int(clamping: logEnd - read) }
            let batch = try await store.changes(after: ResumeToken(sequence: read), limit: 256, options: options)
            guard batch.position > read else { break }
            for event in batch.events where event.id.sequence <= logEnd {
                if try await receives(event, route: route) { pending += 1 }
            }
            read = batch.position
        }
        return pending
    }

    private func receives(_ event: ChangeEvent, route: ChangeEventRoute) async throws -> Bool {
        guard route.watches(event) else { return false }
        if route.deliversUnchanged(event) { return true }
        var current: BSONDocument?
        if route.needsLookup(event), let namespace = event.namespace, let id = event.documentKey?["_id"] {
            current = try await store.database(namespace.database).collection(namespace.collection).findOne([
                "_id": ["$eq": id]
            ])
        }
        do {
            return try route.deliverable(event, currentDocument: current) != nil
        } catch {
            // An event the trigger's `project` cannot shape still waits for it (and will suspend it).
            return true
        }
    }
}
