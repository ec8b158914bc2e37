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
            return try bytes.withUnsafeBytes { bytes in
                Result { () throws(BSONDecodingError) in try BSONDocument(bsonBytes: bytes) }
            }.get()
        } catch {
            throw .location(17_000, "a stored document is corrupt: \(error)")
        }
    }

    /// Decodes from memory the caller owns for the duration of the call (a row being read).
    static func decode(_ bytes: UnsafeRawBufferPointer) throws(StoreError) -> BSONDocument {
        do {
            return try BSONDocument(bsonBytes: bytes)
        } catch {
            throw .location(17_000, "a stored document is corrupt: \(error)")
        }
    }

    /// Appends a field holding an already encoded document to an encoded document: BSON is
    /// `length, elements, 0`, so the new element goes before the final 0 and the length grows.
    static func append(_ key: String, document: [UInt8], to encoded: inout [UInt8]) {
        encoded.removeLast()
        encoded.append(0x03)
        encoded.append(contentsOf: key.utf8)
        encoded.append(0)
        encoded.append(contentsOf: document)
        encoded.append(0)
        let length = Int32(truncatingIfNeeded: encoded.count).littleEndian
        encoded.withUnsafeMutableBytes { $0.storeBytes(of: length, toByteOffset: 0, as: Int32.self) }
    }
}
