import BSON

/// A collection's whole new contents, for `DocumentStore.replaceContents(_:changeLogged:)`: its documents (in
/// this order; each without an `_id` gets an ObjectId) and its secondary indexes (`{key, name?, unique?}`, as
/// `listIndexes` shows them; `_id_` is implied and skipped).
package struct CollectionContents: Sendable {
    package var namespace: Namespace
    package var documents: [BSONDocument]
    package var indexes: [BSONDocument]

    package init(namespace: Namespace, documents: [BSONDocument], indexes: [BSONDocument] = []) {
        self.namespace = namespace
        self.documents = documents
        self.indexes = indexes
    }
}
