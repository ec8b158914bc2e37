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
        var batch = StoreCore.ChangeBatch(events: [], position: position, invalidated: false)
        for record in try engine.changes(after: position, limit: max(1, limit)) {
            batch.position = record.sequence
            let stored = try DocumentEncoding.decode(record.event)
            guard let type = stored["operationType"]?.stringValue.flatMap(ChangeEvent.OperationType.init(rawValue:)),
                let ns = stored["ns"]?.documentValue, let database = ns["db"]?.stringValue
            else { continue }
            let namespace = Namespace(database: database, collection: ns["coll"]?.stringValue ?? "")
            let invalidates: Bool
            switch scope {
            case .store:
                invalidates = false
            case .database(let name):
                guard database == name else { continue }
                invalidates = type == .dropDatabase
            case .collection(let watched):
                guard namespace == watched else { continue }
                invalidates = type == .drop || type == .rename
            }
            let token = ResumeToken(sequence: record.sequence)
            let event = try render(stored, type: type, token: token, namespace: namespace, options: options)
            if let pipeline {
                for output in try pipeline.run([event], source: StorePipelineSource(view: self, database: database)) {
                    guard output["_id"] == .document(token.document) else {
                        throw .location(
                            280,
                            "Encountered an event whose _id field, which contains the resume token, was modified by the pipeline."
                        ).named("ChangeStreamFatalError")
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
                break
            }
        }
        return batch
    }

    /// The event document as MongoDB orders it, with full documents and images as the options ask.
    private func render(
        _ stored: BSONDocument, type: ChangeEvent.OperationType, token: ResumeToken, namespace: Namespace,
        options: ChangeStreamOptions
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
                event.append("fullDocument", try currentDocument(namespace, key: stored["documentKey"]) ?? .null)
            case .whenAvailable:
                event.append("fullDocument", stored["postImage"] ?? .null)
            case .required:
                guard let image = stored["postImage"] else {
                    throw .location(
                        47,
                        "Change stream was configured to require a post-image for all update events, but "
                            + "the post-image was not found for event \(token) on \(namespace)"
                    ).named("NoMatchingDocument")
                }
                event.append("fullDocument", image)
            }
        default: break
        }
        for key in ["ns", "to", "documentKey", "updateDescription"] {
            if let value = stored[key] { event.append(key, value) }
        }
        if [.update, .replace, .delete].contains(type) {
            switch options.fullDocumentBeforeChange {
            case .off: break
            case .whenAvailable: event.append("fullDocumentBeforeChange", stored["preImage"] ?? .null)
            case .required:
                guard let image = stored["preImage"] else {
                    throw .location(
                        47,
                        "Change stream was configured to require a pre-image for all update, delete and "
                            + "replace events, but the pre-image was not found for event \(token) on \(namespace)"
                    ).named("NoMatchingDocument")
                }
                event.append("fullDocumentBeforeChange", image)
            }
        }
        return event
    }

    private func currentDocument(_ namespace: Namespace, key: BSON?) throws(StoreError) -> BSON? {
        guard let state = collection(namespace), let id = key?.documentValue?["_id"],
            let body = try engine.document(collection: state.record.id, key: try IndexKey.encode(id))
        else { return nil }
        return .document(try DocumentEncoding.decode(body))
    }
}
