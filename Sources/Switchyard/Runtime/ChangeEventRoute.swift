import BSON
import DocumentStore

/// Which change events a database trigger receives and in what shape: its namespace and operation types,
/// then its `match` as a `$match` stage and its `project` as a `$project` stage on the event document, as
/// App Services applies them.
///
/// The runtime filters in-process over a stream of the whole store (one for all triggers: `ChangeFeed`)
/// instead of handing the store the pipeline, so that it sees every log entry go by: a trigger whose events are rare still moves its
/// resume token forward past everything else, and never falls out of the retained history.
struct ChangeEventRoute: Sendable {
    let scope: WatchScope
    let operations: Set<ChangeEvent.OperationType>
    let pipeline: Pipeline?
    let fullDocument: Bool

    init(_ trigger: DatabaseTrigger) throws(StoreError) {
        scope = trigger.scope
        operations = Set(trigger.operations.compactMap(\.changeEventType))
        var stages: [BSONDocument] = []
        if !trigger.match.isEmpty { stages.append(["$match": .document(trigger.match)]) }
        if !trigger.project.isEmpty { stages.append(["$project": .document(trigger.project)]) }
        pipeline = stages.isEmpty ? nil : try Pipeline(stages)
        fullDocument = trigger.fullDocument
    }

    /// The cheap test first: the event's namespace and operation type.
    func watches(_ event: ChangeEvent) -> Bool {
        guard operations.contains(event.operationType), let namespace = event.namespace else { return false }
        switch scope {
        case .deployment: return true
        case .database(let name): return namespace.database == name
        case .collection(let database, let collection):
            return namespace.database == database && namespace.collection == collection
        }
    }

    /// Whether the event needs the document as it is now (`fullDocument` of an update).
    func needsLookup(_ event: ChangeEvent) -> Bool {
        fullDocument && event.operationType == .update
    }

    /// Whether the function receives the event as the stream gave it (no lookup, no `match` or `project`).
    func deliversUnchanged(_ event: ChangeEvent) -> Bool {
        pipeline == nil && !needsLookup(event)
    }

    /// The event as the trigger's function receives it, or nil when `match` filters it out.
    /// `currentDocument` is the looked-up document for `needsLookup` events (nil when since deleted).
    func deliverable(_ event: ChangeEvent, currentDocument: BSONDocument?) throws(StoreError) -> ChangeEvent? {
        // The common case is the event as the stream gave it: not copied, not parsed again.
        if deliversUnchanged(event) { return event }
        var document = event.raw
        if needsLookup(event) {
            // Where MongoDB puts it: after wallTime, before ns.
            let value: BSON = currentDocument.map { .document($0) } ?? .null
            _ = document.removeValue(forKey: "fullDocument")
            document.insert("fullDocument", value, at: document.position(of: "ns") ?? document.count)
        }
        guard let pipeline else {
            return ChangeEvent(document: document, id: event.id, operationType: event.operationType)
        }
        guard let output = try pipeline.run([document], source: NoCollections()).first else { return nil }
        guard output["_id"] == .document(event.id.document) else {
            throw StoreError(
                code: .changeStreamFatalError,
                message:
                    "The trigger's project modified the change event's _id, which holds its resume token; keep _id.")
        }
        return ChangeEvent(document: output, id: event.id, operationType: event.operationType)
    }
}

/// `$lookup` has nothing to read in a trigger's match: App Services allows only the event itself.
private struct NoCollections: PipelineSource {
    func documents(inCollection name: String) throws(StoreError) -> [BSONDocument] { [] }
}
