import BSON
import DocumentStore
import Foundation

extension TriggerRuntime {
    /// How many change-log entries a status reads to count a trigger's pending events: one batch of the log.
    /// Entries past these are counted as they stand in the log, without being read, so a status stays cheap
    /// however large the backlog (the admin API is polled while triggers catch up).
    static let pendingScanLimit = 256

    /// The trigger's pending events after `position`, up to `logEnd`. Of the first `pendingScanLimit` log
    /// entries, those `trigger` receives: its namespace and operation types, and its `match` (on the event as
    /// the function would get it, the current document looked up where `fullDocument` asks for it and a
    /// `match` or `project` could depend on it). Every log entry past them counts, whatever it is: beyond
    /// the scan the number is an upper bound. With the count, the wall time of the oldest of them (nil with none,
    /// or when none of them was read).
    func pending(of trigger: DatabaseTrigger, after position: Int64, through logEnd: Int64) async throws
        -> (count: Int, oldest: Date?)
    {
        let route = try ChangeEventRoute(trigger)
        // Pre-images matter only to a `match` or `project` that reads them; DDL events, as the feed has them.
        let options = ChangeStreamOptions(
            fullDocumentBeforeChange: trigger.fullDocumentBeforeChange && route.pipeline != nil ? .whenAvailable : .off,
            showExpandedEvents: true)
        var pending = 0
        var oldest: Date?
        var read = position
        while read < logEnd {
            if read - position >= Self.pendingScanLimit { return (pending + Int(clamping: logEnd - read), oldest) }
            let limit = Int(clamping: min(Int64(Self.pendingScanLimit) - (read - position), logEnd - read))
            let batch = try await store.changes(after: ResumeToken(sequence: read), limit: limit, options: options)
            guard batch.position > read else { break }
            for event in batch.events where event.id.sequence <= logEnd {
                guard try await receives(event, route: route) else { continue }
                pending += 1
                if oldest == nil { oldest = event.wallTime?.date }
            }
            read = batch.position
        }
        return (pending, oldest)
    }

    private func receives(_ event: ChangeEvent, route: ChangeEventRoute) async throws -> Bool {
        guard route.watches(event) else { return false }
        // Without `match` or `project` every watched event is delivered, looked up or not.
        guard route.pipeline != nil else { return true }
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
