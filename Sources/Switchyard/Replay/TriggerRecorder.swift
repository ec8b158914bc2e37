import BSON
import DocumentStore
import Foundation

/// Makes a `TriggerRecording` of one database trigger from an app's store: the change log's events in the
/// window that the trigger's route takes (its operation types, `match`, `project`, `fullDocument` and pre-image
/// options, through `ChangeEventRoute`), each with the runs the invocation log holds for it, the messages the
/// outbox says those runs sent and the changes the log says they made (its entries are tagged with the run whose
/// writes appended them, `StoreWriteOrigin`); and the store's data as of the window's start.
///
/// The snapshot is the data now with every later change taken back: inserts removed, updates, replaces and deletes
/// undone from their pre-images. A collection that keeps no pre-images cannot be taken back so: its changed
/// documents are left as they are now, and the recording's notes say so (as they do for collections dropped or
/// renamed since).
package struct TriggerRecorder: Sendable {
    /// Why a recording cannot be made.
    package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        package var description: String
        /// The input was wrong (the trigger, the window): a command exits with 2.
        package var isBadInput: Bool

        init(_ description: String, badInput: Bool = false) {
            self.description = description
            isBadInput = badInput
        }
    }

    /// The databases a snapshot leaves out: the app's own logs and state, which no trigger watches.
    static let internalDatabases: Set<String> = ["local"]
    /// How many log entries are read at a time.
    static let batchSize = 1_000

    let store: DocumentStore
    let invocations: InvocationLog
    let outbox: OutboxLog

    package init(store: DocumentStore, invocations: InvocationLog, outbox: OutboxLog) {
        self.store = store
        self.invocations = invocations
        self.outbox = outbox
    }

    /// What a recording covers: a time window, or one event alone (the data as it was right before it).
    package enum Window: Sendable {
        /// The changes logged at or after `since` and before `until` (open ends: the log's start and end).
        case time(since: Date?, until: Date?)
        /// The change event whose resume token is `eventId` (`_id._data`, an invocation record's `eventId`).
        case event(String)
    }

    /// The recording of `trigger` over the changes logged at or after `since` and before `until` (open ends:
    /// the log's start and end).
    package func record(_ trigger: TriggerDefinition, since: Date? = nil, until: Date? = nil)
        async throws(Failure) -> TriggerRecording
    {
        if let since, let until, until <= since {
            throw Failure("--until must be after --since", badInput: true)
        }
        return try await record(trigger, window: .time(since: since, until: until))
    }

    package func record(_ trigger: TriggerDefinition, window: Window) async throws(Failure) -> TriggerRecording {
        guard case .database(let database) = trigger.kind else {
            throw Failure(
                "'\(trigger.name)' is a \(trigger.kind.typeName) trigger: only database triggers can be recorded",
                badInput: true)
        }
        guard trigger.webhook == nil else {
            throw Failure(
                "'\(trigger.name)' posts its events to a webhook: only triggers that run a function can be recorded",
                badInput: true)
        }
        do {
            return try await record(trigger, database, window: window)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure("cannot record '\(trigger.name)': \(error)")
        }
    }

    private func record(_ trigger: TriggerDefinition, _ database: DatabaseTrigger, window: Window)
        async throws -> TriggerRecording
    {
        let route = try ChangeEventRoute(database)
        var notes: [String] = []
        let (logStart, events) = try await loggedEvents()
        let startIndex: Int
        let endIndex: Int
        var since: Date?
        var until: Date?
        switch window {
        case .time(let from, let to):
            (since, until) = (from, to)
            startIndex = from.map { since in events.firstIndex { Self.time(of: $0) >= since } ?? events.count } ?? 0
            endIndex =
                to.map { until in events.firstIndex { Self.time(of: $0) >= until } ?? events.count }
                ?? events.count
            if logStart > 0, let from, let first = events.first, Self.time(of: first) > from {
                notes.append(
                    "the change log keeps events only from \(UTCTimestamp.text(Self.time(of: first), milliseconds: true)) "
                        + "on (older ones were pruned): the recording starts there")
            }
        case .event(let eventId):
            guard let index = events.firstIndex(where: { $0.id.data == eventId }) else {
                throw Failure("the change log no longer holds event \(eventId)", badInput: true)
            }
            (startIndex, endIndex) = (index, index + 1)
            since = Self.time(of: events[index])
        }
        var snapshot = try await currentData()
        snapshot.undo(events[startIndex...], notes: &notes)
        let window = events[startIndex..<max(startIndex, endIndex)]

        // The document an update's `fullDocument` lookup found: the data right after the event, replayed from the
        // snapshot in a scratch store (only when the trigger asks for lookups).
        let lookups: DocumentStore? =
            database.fullDocument && window.contains(where: route.needsLookup) ? try await scratch(snapshot) : nil
        defer { if let lookups { Task { await lookups.close() } } }

        var changes: [TriggerRecording.Change] = []
        changes.reserveCapacity(window.count)
        for event in window {
            try await lookups?.reapply(event)
            guard route.watches(event) else {
                changes.append(TriggerRecording.Change(change: event))
                continue
            }
            var received = event
            if !database.fullDocumentBeforeChange, received.raw["fullDocumentBeforeChange"] != nil {
                // The trigger's stream does not ask for pre-images: its function never saw this one.
                _ = received.raw.removeValue(forKey: "fullDocumentBeforeChange")
                received = ChangeEvent(document: received.raw, id: event.id, operationType: event.operationType)
            }
            var current: BSONDocument?
            if let lookups, route.needsLookup(event), let namespace = event.namespace,
                let id = event.documentKey?["_id"]
            {
                current = try await lookups.database(namespace.database).collection(namespace.collection).findOne([
                    "_id": ["$eq": id]
                ])
            }
            changes.append(
                TriggerRecording.Change(
                    change: event, delivered: try route.deliverable(received, currentDocument: current)))
        }
        try await attachRuns(of: trigger, to: &changes, since: window.first.map(Self.time), notes: &notes)
        return TriggerRecording(
            trigger: trigger.name, function: trigger.function, since: since, until: until, notes: notes,
            snapshot: snapshot.collections, changes: changes)
    }

    /// Every event the retained log holds, with pre-images where kept, and the position it starts after.
    private func loggedEvents() async throws -> (start: Int64, events: [ChangeEvent]) {
        let start = try await store.changeLogStart()
        let options = ChangeStreamOptions(fullDocumentBeforeChange: .whenAvailable, showExpandedEvents: true)
        var events: [ChangeEvent] = []
        var position = start
        while true {
            let batch = try await store.changes(
                after: ResumeToken(sequence: position), limit: Self.batchSize, options: options)
            events.append(contentsOf: batch.events)
            guard batch.position > position else { return (start, events) }
            position = batch.position
        }
    }

    /// The data of every database but the internal ones, as it is now.
    private func currentData() async throws -> DataSnapshot {
        var snapshot = DataSnapshot()
        for name in try await store.listDatabaseNames().sorted() where !Self.internalDatabases.contains(name) {
            let database = store.database(name)
            for collection in try await database.listCollectionNames().sorted() {
                let documents = try await database.collection(collection).find().toArray()
                snapshot.add(Namespace(database: name, collection: collection), documents)
            }
        }
        return snapshot
    }

    /// A scratch in-memory store holding `snapshot`.
    private func scratch(_ snapshot: DataSnapshot) async throws -> DocumentStore {
        let scratch = try await DocumentStore.open(.memory)
        for collection in snapshot.collections where !collection.documents.isEmpty {
            try await scratch.database(collection.namespace.database).collection(collection.namespace.collection)
                .insertMany(collection.documents)
        }
        return scratch
    }

    /// Adds to each delivered change the trigger's runs on it (its function's, not its error handler's), the
    /// messages they sent and the changes they made (read by their invocation ids, in one read).
    private func attachRuns(
        of trigger: TriggerDefinition, to changes: inout [TriggerRecording.Change], since: Date?, notes: inout [String]
    ) async throws {
        var positions: [String: Int] = [:]
        for (index, change) in changes.enumerated() where change.delivered != nil {
            positions[change.change.id.data] = index
        }
        guard !positions.isEmpty else { return }
        // A run starts after its event was logged: the window's first event bounds the search.
        let records = try await invocations.records(
            trigger: trigger.name, function: trigger.function, limit: .max,
            since: since.map { $0.addingTimeInterval(-1) })
        let runs = records.filter { record in record.eventId.map { positions[$0] != nil } ?? false }
        let messages = try await outbox.requests(ofInvocations: runs.map(\.id))
        let writes = try await store.changes(origins: runs.map(\.id.hex))
        // A run starts after its event was logged: on an event past the untagged entries, all its writes are tagged.
        let untaggedThrough = try await store.changeOriginsTaggedAfter()
        for record in runs.sorted(by: { $0.attempt < $1.attempt }) {
            guard let eventId = record.eventId, let index = positions[eventId] else { continue }
            let tagged = changes[index].change.id.sequence > untaggedThrough
            changes[index].runs.append(
                TriggerRecording.Run(
                    record, messages: messages[record.id] ?? [],
                    writes: tagged ? (writes[record.id.hex] ?? []).map(\.runWrite) : nil))
        }
        if changes.contains(where: { $0.runs.contains { $0.writes == nil } }) {
            notes.append(
                "the runs of events logged before this data directory kept which run made a change (through "
                    + "\(ResumeToken(sequence: untaggedThrough))) have no writes recorded: replay shows their writes now"
            )
        }
    }

    /// When a change was logged: its `wallTime`.
    static func time(of event: ChangeEvent) -> Date {
        event.wallTime?.date ?? .distantPast
    }
}
