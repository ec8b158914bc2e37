import BSON
import DocumentStore

/// A change event made the only trustworthy way: by performing the change on a scratch in-memory store
/// (with pre- and post-images enabled on the collection) and returning what its change stream emits. So a
/// generated event has exactly the fields, order and update description MongoDB's would, never a guess.
package struct SyntheticEvent: Sendable {
    /// The write to perform. The documents that exist before it are inserted first, unobserved.
    package enum Change: Sendable, Equatable {
        case insert(BSONDocument)
        /// `update` is a document of update operators (`{"$set": …}`).
        case update(before: BSONDocument, update: BSONDocument)
        case replace(before: BSONDocument, replacement: BSONDocument)
        case delete(BSONDocument)

        /// The change-stream `operationType` this change produces.
        package var operationType: ChangeEvent.OperationType {
            switch self {
            case .insert: .insert
            case .update: .update
            case .replace: .replace
            case .delete: .delete
            }
        }

        var before: BSONDocument? {
            switch self {
            case .insert: nil
            case .update(let before, _), .replace(let before, _): before
            case .delete(let document): document
            }
        }
    }

    /// Why no event could be made: the store's own error for an invalid write, or a change that changes nothing.
    package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        package var description: String

        package init(_ description: String) {
            self.description = description
        }
    }

    package var namespace: Namespace
    package var change: Change
    /// Update events carry the document after the change (`fullDocument: updateLookup`, as a trigger's
    /// `fullDocument: true` asks). Inserts and replaces always carry it.
    package var fullDocument: Bool
    /// Update, replace and delete events carry the document before the change (`fullDocumentBeforeChange`).
    package var fullDocumentBeforeChange: Bool

    package init(
        namespace: Namespace, change: Change, fullDocument: Bool = false, fullDocumentBeforeChange: Bool = false
    ) {
        self.namespace = namespace
        self.change = change
        self.fullDocument = fullDocument
        self.fullDocumentBeforeChange = fullDocumentBeforeChange
    }

    /// Performs the change on a fresh in-memory store and returns the event its change stream emits.
    package func generate() async throws(Failure) -> ChangeEvent {
        guard namespace.isChangeLogged else {
            throw Failure("writes to the '\(namespace.database)' database emit no change events")
        }
        let store: DocumentStore
        do {
            store = try await DocumentStore.open(.memory)
        } catch {
            throw Failure("cannot open an in-memory store: \(error)")
        }
        do {
            let event = try await generate(in: store)
            await store.close()
            return event
        } catch {
            await store.close()
            throw error
        }
    }

    private func generate(in store: DocumentStore) async throws(Failure) -> ChangeEvent {
        do {
            let database = store.database(namespace.database)
            let collection = try await database.createCollection(
                namespace.collection, options: CreateCollectionOptions(changeStreamPreAndPostImages: true))
            var key: BSON = .null
            if let before = change.before {
                key = try await collection.insertOne(before).insertedId
            }
            let options = ChangeStreamOptions(
                fullDocument: fullDocument ? .updateLookup : .default,
                fullDocumentBeforeChange: fullDocumentBeforeChange ? .whenAvailable : .off)
            let stream = try await collection.watch([], options: options)
            switch change {
            case .insert(let document):
                try await collection.insertOne(document)
            case .update(_, let update):
                let result = try await collection.updateOne(["_id": key], update)
                guard result.modifiedCount > 0 else {
                    throw Failure("the update leaves the document as it was, and an unchanged document emits no event")
                }
            case .replace(_, let replacement):
                let result = try await collection.replaceOne(["_id": key], replacement)
                guard result.modifiedCount > 0 else {
                    throw Failure("the replacement equals the document, and an unchanged document emits no event")
                }
            case .delete:
                try await collection.deleteOne(["_id": key])
            }
            var events = stream.makeAsyncIterator()
            guard let event = try await events.next() else {
                throw Failure("the store's change stream ended before emitting the event")
            }
            return event
        } catch let failure as Failure {
            throw failure
        } catch let error as StoreError {
            throw Failure(error.message)
        } catch {
            throw Failure("\(error)")
        }
    }

    /// The update document that turns `before` into `after` field by field: `$set` for top-level fields
    /// added or changed, `$unset` for fields removed (nil when nothing differs). A different `_id` is kept in
    /// `$set`, so the store rejects it as MongoDB would.
    package static func update(from before: BSONDocument, to after: BSONDocument) -> BSONDocument? {
        var set = BSONDocument()
        var unset = BSONDocument()
        for (key, value) in after where before[key] != value {
            set.append(key, value)
        }
        for (key, _) in before where after[key] == nil {
            unset.append(key, "")
        }
        var update = BSONDocument()
        if !set.isEmpty { update.append("$set", .document(set)) }
        if !unset.isEmpty { update.append("$unset", .document(unset)) }
        return update.isEmpty ? nil : update
    }
}
