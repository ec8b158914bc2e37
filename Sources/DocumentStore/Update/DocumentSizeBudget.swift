/// What an update may still add to the document it applies to before the result passes MongoDB's 16 MiB limit.
/// Spent as the update walks the document, before each change is built: ten bytes of request (`{$set:
/// {"arr.1000000": 1}}`) can ask for megabytes of padding, and `$[]` repeats a value for every element, so the
/// limit is checked before the memory is taken, not after.
final class DocumentSizeBudget {
    private(set) var remaining: Int

    init(documentSize: Int) {
        remaining = StoreCore.maximumDocumentBytes - documentSize
    }

    /// Takes `bytes` (negative for a change that shrinks the document); throws once the document would be too
    /// large.
    func spend(_ bytes: Int) throws(StoreError) {
        remaining -= bytes
        guard remaining >= 0 else { throw .resultTooLarge }
    }
}

extension StoreError {
    /// An update's result over the limit, as the server words it.
    static var resultTooLarge: StoreError {
        .bsonObjectTooLarge("Resulting document after update is larger than \(StoreCore.maximumDocumentBytes)")
    }
}
