import BSON
import DocumentStore

extension DocumentCollection {
    /// Drops the index whose key is `key`, if the collection has one (a collection not made yet has none): for
    /// logs whose earlier layout keeps an index that serves no query (their `+Migrations` files).
    func dropIndex(keyed key: BSONDocument) async throws {
        let indexes: [BSONDocument]
        do {
            indexes = try await listIndexes()
        } catch let error as StoreError where error.code == .namespaceNotFound {
            return  // no collection yet
        }
        for index in indexes where index["key"]?.documentValue == key {
            if let name = index["name"]?.stringValue { try await dropIndex(name) }
        }
    }
}
