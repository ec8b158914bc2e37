import BSON

/// Reading the change log for change streams, on a pooled read connection when there is one.
extension StoreView {
    /// The events after `position` that `scope` sees, rendered for `options` and passed through the
    /// stream's pipeline. Reads at most `limit` log entries.
    func readChanges(
        after position: Int64, scope: ChangeStreamScope, options: ChangeStreamOptions, pipeline: Pipeline?, limit: Int
    ) throws(StoreError) -> StoreCore.ChangeBatch {
        // Read in this view's snapshot, so a prune committed after it cannot hide events from it.
        try StoreCore.checkRetained(after: position, prunedThrough: try engine.metadata("prunedThrough") ?? 0)
        return try Self.changeBatch(
            try engine.changes(after: position, limit: max(1, limit)), after: position, scope: scope, options: options,
            pipeline: pipeline, view: self)
    }

    /// The events of log `records` (in log order, the first right after `position`) that `scope` sees.
    /// `view` serves `updateLookup` and the pipeline's lookups; without one (records the store just
    /// committed, handed over in memory: `ChangeNotifier`) neither may be asked for.
    static func changeBatch(
        _ records: some Sequence<ChangeRecord>, after position: Int64, scope: ChangeStreamScope,
        options: ChangeStreamOptions, pipeline: Pipeline?, view: StoreView?
    ) throws(StoreError) -> StoreCore.ChangeBatch {
        var batch = StoreCore.ChangeBatch(events: [], position: position, invalidated: false)
        for record in records {
            if try append(record, to: &batch, scope: scope, options: options, pipeline: pipeline, view: view) { break }
        }
        return batch
    }

    /// The events of entries the store just committed (`ChangeNotifier`), for a stream without a
    /// pipeline: an insert's event is built from its document, any other entry is decoded as if read from the
    /// log. `view` serves `updateLookup`, and is needed only when the entries hold an update.
    static func changeBatch(
        committed changes: [CommittedChange], after position: Int64, scope: ChangeStreamScope,
        options: ChangeStreamOptions, view: StoreView?
    ) throws(StoreError) -> StoreCore.ChangeBatch {
        var batch = StoreCore.ChangeBatch(events: [], position: position, invalidated: false)
        for change in changes {
            if let insert = change.insert {
                batch.position = change.sequence
                if let event = CommittedChange.event(
                    insert, of: change.record, clusterTime: change.clusterTime, scope: scope)
                {
                    batch.events.append(event)
                }
            } else if try append(change.record, to: &batch, scope: scope, options: options, pipeline: nil, view: view) {
                break
            }
        }
        return batch
    }

    /// Adds the events of one log entry to `batch`; true when it invalidated the stream (nothing may follow).
    private static func append(
        _ record: ChangeRecord, to batch: inout StoreCore.ChangeBatch, scope: ChangeStreamScope,
        options: ChangeStreamOptions, pipeline: Pipeline?, view: StoreView?
    ) throws(StoreError) -> Bool {
        batch.position = record.sequence
        let stored = try DocumentEncoding.decode(record.event)
        guard let type = stored["operationType"]?.stringValue.flatMap(ChangeEvent.OperationType.init(rawValue:)),
            let ns = stored["ns"]?.documentValue, let database = ns["db"]?.stringValue
        else { return false }
        // Logged for every stream, shown only to those that asked (as MongoDB keeps them in its oplog).
        if type.isExpanded && !options.showExpandedEvents { return false }
        let namespace = Namespace(database: database, collection: ns["coll"]?.stringValue ?? "")
        let invalidates: Bool
        switch scope {
        case .store:
            invalidates = false
        case .database(let name):
            guard database == name else { return false }
            invalidates = type == .dropDatabase
        case .collection(let watched):
            guard namespace == watched else { return false }
            invalidates = type == .drop || type == .rename
        }
        let token = ResumeToken(sequence: record.sequence)
        let event = try render(stored, type: type, token: token, namespace: namespace, options: options, view: view)
        if let pipeline {
            guard let view else { throw Self.needsView }
            for output in try pipeline.run([event], source: StorePipelineSource(view: view, database: database)) {
                guard output["_id"] == .document(token.document) else {
                    throw StoreError(
                        code: .changeStreamFatalError,
                        message:
                            "Encountered an event whose _id field, which contains the resume token, was modified by the pipeline."
                    )
                }
                batch.events.append(ChangeEvent(raw: output, token: token, operationType: type))
            }
        } else {
            batch.events.append(ChangeEvent(raw: event, token: token, operationType: type))
        }
        if invalidates {
            let invalidate = ResumeToken(sequence: record.sequence, isInvalidate: true)
            let raw: BSONDocument = [
                "_id": .document(invalidate.document), "operationType": "invalidate",
                "clusterTime": stored["clusterTime"] ?? .null, "wallTime": stored["wallTime"] ?? .null,
            ]
            batch.events.append(ChangeEvent(raw: raw, token: invalidate, operationType: .invalidate))
            batch.invalidated = true
            return true
        }
        return false
    }

    /// The event document as MongoDB orders it, with full documents and images as the options ask.
    private static func render(
        _ stored: BSONDocument, type: ChangeEvent.OperationType, token: ResumeToken, namespace: Namespace,
        options: ChangeStreamOptions, view: StoreView?
    ) throws(StoreError) -> BSONDocument {
        var event: BSONDocument = ["_id": .document(token.document), "operationType": .string(type.rawValue)]
        for key in ["clusterTime", "wallTime"] { if let value = stored[key] { event.append(key, value) } }
        switch type {
        case .insert, .replace:
            event.append("fullDocument", stored["fullDocument"] ?? .null)
        case .update:
            switch options.fullDocument {
            case .default: break
            case .updateLookup:
                guard let view else { throw Self.needsView }
                event.append("fullDocument", try view.currentDocument(namespace, key: stored["documentKey"]) ?? .null)
            case .whenAvailable:
                event.append("fullDocument", stored["postImage"] ?? .null)
            case .required:
                guard let image = stored["postImage"] else {
                    throw StoreError(
                        code: .noMatchingDocument,
                        message: "Change stream was configured to require a post-image for all update events, but "
                            + "the post-image was not found for event \(token) on \(namespace)")
                }
                event.append("fullDocument", image)
            }
        default: break
        }
        for key in ["ns", "to", "documentKey", "updateDescription"] {
            if let value = stored[key] { event.append(key, value) }
        }
        if options.showExpandedEvents {
            for key in ["operationDescription", "stateBeforeChange"] {
                if let value = stored[key] { event.append(key, value) }
            }
        }
        for key in ["lsid", "txnNumber"] {
            if let value = stored[key] { event.append(key, value) }
        }
        if [.update, .replace, .delete].contains(type) {
            switch options.fullDocumentBeforeChange {
            case .off: break
            case .whenAvailable: event.append("fullDocumentBeforeChange", stored["preImage"] ?? .null)
            case .required:
                guard let image = stored["preImage"] else {
                    throw StoreError(
                        code: .noMatchingDocument,
                        message: "Change stream was configured to require a pre-image for all update, delete and "
                            + "replace events, but the pre-image was not found for event \(token) on \(namespace)")
                }
                event.append("fullDocumentBeforeChange", image)
            }
        }
        return event
    }

    private static let needsView = StoreError.location(
        17_013, "a change stream read without the store's data needed it (updateLookup or a pipeline lookup)")

    private func currentDocument(_ namespace: Namespace, key: BSON?) throws(StoreError) -> BSON? {
        guard let state = collection(namespace), let id = key?.documentValue?["_id"],
            let body = try engine.document(collection: state.record.id, key: try IndexKey.encode(id))
        else { return nil }
        return .document(try DocumentEncoding.decode(body))
    }
}
