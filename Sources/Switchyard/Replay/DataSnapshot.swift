import BSON
import DocumentStore

/// The documents of a store's collections, taken back change by change to an earlier point: what
/// `TriggerRecorder` writes as a recording's snapshot.
struct DataSnapshot {
    /// One collection's documents by `_id`, in the order they were read (taken-back deletes at the end).
    private struct Contents {
        var order: [BSON] = []
        var documents: [BSON: BSONDocument] = [:]

        mutating func put(_ document: BSONDocument) {
            guard let id = document["_id"] else { return }
            if documents.updateValue(document, forKey: id) == nil { order.append(id) }
        }
    }

    private var contents: [Namespace: Contents] = [:]
    private var namespaces: [Namespace] = []

    mutating func add(_ namespace: Namespace, _ documents: [BSONDocument]) {
        if contents[namespace] == nil { namespaces.append(namespace) }
        for document in documents { contents[namespace, default: Contents()].put(document) }
    }

    /// The collections with their documents, in the order they were added.
    var collections: [TriggerRecording.Collection] {
        namespaces.map { namespace in
            let held = contents[namespace] ?? Contents()
            return TriggerRecording.Collection(
                namespace: namespace, documents: held.order.compactMap { held.documents[$0] })
        }
    }

    /// Takes back `events` (newest first), noting where it cannot: changes of collections without pre-images
    /// leave those documents as they are, and dropped or renamed collections are not brought back.
    mutating func undo(_ events: some BidirectionalCollection<ChangeEvent>, notes: inout [String]) {
        // The documents whose changes could not be undone, by collection: a document the window inserted is
        // removed whole when its insert is met (older, so later in this walk), whatever came after it.
        var unknown: [Namespace: Set<BSON>] = [:]
        var unrestorable: [String] = []
        for event in events.reversed() {
            guard let namespace = event.namespace else { continue }
            let id = event.documentKey?["_id"] ?? .null
            switch event.operationType {
            case .insert:
                contents[namespace]?.documents.removeValue(forKey: id)
                unknown[namespace]?.remove(id)
            case .update, .replace, .delete:
                guard let before = event.fullDocumentBeforeChange else {
                    unknown[namespace, default: []].insert(id)
                    continue
                }
                if contents[namespace] == nil { namespaces.append(namespace) }
                contents[namespace, default: Contents()].put(before)
                unknown[namespace]?.remove(id)
            case .drop, .dropDatabase, .rename:
                unrestorable.append("\(namespace.database).\(namespace.collection) (\(event.operationType.rawValue))")
            case .invalidate, .create, .createIndexes, .dropIndexes, .modify:
                continue
            }
        }
        unknown = unknown.filter { !$0.value.isEmpty }
        for namespace in unknown.keys.sorted(by: {
            "\($0.database).\($0.collection)" < "\($1.database).\($1.collection)"
        }) {
            notes.append(
                "\(namespace.database).\(namespace.collection): \(unknown[namespace]?.count ?? 0) document(s) changed "
                    + "later could not be taken back (the collection keeps no pre-images): they are as they are now "
                    + "(a deleted one is missing), not as they were at the window's start")
        }
        if !unrestorable.isEmpty {
            notes.append(
                "dropped or renamed after the window's start, so not in the snapshot as they were then: "
                    + unrestorable.joined(separator: ", "))
        }
    }
}
