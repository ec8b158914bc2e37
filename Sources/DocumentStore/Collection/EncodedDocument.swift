import BSON

/// A document already encoded as BSON, with its ObjectId `_id` first: what a log that writes many small documents
/// and never changes them hands the store (`DocumentCollection.insertMany(encoded:)`), so that nothing is built as a
/// `BSONDocument`, encoded or decoded on the way in.
package struct EncodedDocument: Sendable {
    package let id: ObjectId
    package let bytes: [UInt8]

    /// Writes `_id`, then the fields `write` appends.
    package init(id: ObjectId = ObjectId(), capacity: Int = 256, fields write: (inout BSONDocumentWriter) -> Void) {
        var writer = BSONDocumentWriter(capacity: capacity)
        writer.append("_id", id)
        write(&writer)
        self.id = id
        bytes = writer.finish()
    }
}
