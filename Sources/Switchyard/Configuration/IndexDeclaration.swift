import BSON

/// An index the app's functions rely on, from the `indexes:` section of `triggers.yaml` (on Atlas, an index
/// made on the cluster). The app makes each one when it opens and when a reload adds it, so it is built over
/// the data there is then, not the first time a function finds the collection grown large.
package struct IndexDeclaration: Sendable, Equatable {
    package var database: String
    package var collection: String
    /// The key pattern, each field 1 (ascending) or -1 (descending).
    package var keys: BSONDocument
    package var unique: Bool
    /// Nil: MongoDB's default name (`processed_1_date_1`).
    package var name: String?

    package init(database: String, collection: String, keys: BSONDocument, unique: Bool = false, name: String? = nil) {
        self.database = database
        self.collection = collection
        self.keys = keys
        self.unique = unique
        self.name = name
    }
}
