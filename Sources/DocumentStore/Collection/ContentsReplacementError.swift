/// Why `DocumentStore.replaceContents(_:changeLogged:)` changed nothing: the store's error, the position of the
/// collection it is about in the list given, and of the document when one could not be stored (an `_id` that
/// cannot be one, a duplicate `_id` or unique-index key, a document over 16 MiB).
package struct ContentsReplacementError: Error, Sendable, Equatable, CustomStringConvertible {
    package var collection: Int
    package var document: Int?
    package var error: StoreError

    package init(collection: Int, document: Int?, error: StoreError) {
        self.collection = collection
        self.document = document
        self.error = error
    }

    package var description: String { error.description }
}
