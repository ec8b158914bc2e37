import BSON

/// How documents, change events and catalog options are stored as bytes: BSON, behind this one seam.
enum DocumentEncoding {
    static func encode(_ document: BSONDocument) throws(StoreError) -> [UInt8] {
        do {
            return try document.bsonBytes
        } catch {
            throw .badValue("cannot store the document as BSON: \(error)")
        }
    }

    static func decode(_ bytes: [UInt8]) throws(StoreError) -> BSONDocument {
        do {
            return try BSONDocument(bsonBytes: bytes)
        } catch {
            throw .location(17_000, "a stored document is corrupt: \(error)")
        }
    }
}
