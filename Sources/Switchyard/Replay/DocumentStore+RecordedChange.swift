import BSON
import DocumentStore

extension DocumentStore {
    /// Makes a logged change again in this (scratch) store, so that it holds what the original store held after
    /// it: inserts and replaces put the logged document, updates apply the logged update description, deletes and
    /// drops remove. Forgiving where a replayed run wrote the same document first (an insert replaces it).
    /// DDL events other than drops change nothing a function reads and are passed over.
    func reapply(_ change: ChangeEvent) async throws {
        guard let namespace = change.namespace else { return }
        let collection = database(namespace.database).collection(namespace.collection)
        let key = change.documentKey ?? [:]
        switch change.operationType {
        case .insert, .replace:
            guard let document = change.fullDocument else { return }
            try await collection.replaceOne(key, document, upsert: true)
        case .update:
            guard let description = change.updateDescription else { return }
            var update = BSONDocument()
            if !description.updatedFields.isEmpty { update.append("$set", .document(description.updatedFields)) }
            if !description.removedFields.isEmpty {
                var unset = BSONDocument()
                for field in description.removedFields { unset.append(field, .string("")) }
                update.append("$unset", .document(unset))
            }
            if !update.isEmpty { try await collection.updateOne(key, update) }
            // Truncations after the set: MongoDB reports them apart, for the array's new end.
            for truncated in description.truncatedArrays {
                try await collection.updateOne(
                    key, ["$push": [truncated.field: ["$each": [], "$slice": .int32(truncated.newSize)]]])
            }
        case .delete:
            try await collection.deleteOne(key)
        case .drop:
            _ = try await collection.drop()
        case .dropDatabase:
            try await dropDatabase(namespace.database)
        case .rename:
            // Across databases is not something this store's collections can do by renaming: passed over.
            guard let target = change.to, target.database == namespace.database else { return }
            _ = try await collection.rename(to: target.collection, dropTarget: true)
        case .invalidate, .create, .createIndexes, .dropIndexes, .modify:
            return
        }
    }
}
