/// BSON binary form (bsonspec.org): encoding and strict decoding.
extension BSONDocument {
    /// How deeply documents, arrays and code-with-scope scopes may nest, counting the top-level document as
    /// 1. MongoDB allows 100 for stored documents; this is generous but keeps every recursive algorithm
    /// over values (equality, comparison, encoding) well within a thread's stack.
    package static let maximumNestingDepth = 1000

    /// The document as BSON bytes, in field order (duplicate keys, if a builder appended them, are written
    /// as they are). Fails for what BSON cannot carry: a NUL byte in a key or regular expression,
    /// nesting deeper than `maximumNestingDepth`, or a document over 2 GiB.
    package var bsonBytes: [UInt8] {
        get throws(BSONEncodingError) {
            try BSONEncoder.encode(self)
        }
    }

    /// Decodes exactly one BSON document, which must span all of `bsonBytes`.
    ///
    /// Strict where the bytes are ambiguous or unsafe: lengths must agree with each other and with the
    /// input, strings and keys must be valid UTF-8 and NUL-terminated, booleans 0 or 1, type bytes known.
    /// A document that repeats a key is rejected with `.duplicateKey`: BSON on the wire can carry
    /// duplicates, but the rest of Switchyard treats a document's keys as unique, and silently keeping one
    /// of the values would change what a query sees. Lenient where the BSON specification and its drivers
    /// are: array keys are not checked to be "0", "1", … (they are renumbered), and regular expression
    /// options are sorted.
    package init(bsonBytes: some Collection<UInt8>) throws(BSONDecodingError) {
        let result =
            bsonBytes.withContiguousStorageIfAvailable { BSONDecoder.decode($0) }
            ?? Array(bsonBytes).withUnsafeBufferPointer { BSONDecoder.decode($0) }
        self = try result.get()
    }

    /// Decodes exactly one BSON document spanning `bsonBytes`, as `init(bsonBytes:)` does, straight from
    /// memory someone else owns (a database row), without copying it first.
    package init(bsonBytes: UnsafeRawBufferPointer) throws(BSONDecodingError) {
        self = try BSONDecoder.decode(bsonBytes.assumingMemoryBound(to: UInt8.self)).get()
    }
}
