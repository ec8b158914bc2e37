/// JSON as RFC 8259 writes it, read into BSON values: for APIs that speak plain JSON (FCM, Google's OAuth2,
/// APNs), where `{"$numberLong": "5"}` is an object with a `$numberLong` field and `{"case": 1, "$date": 2}` an
/// ordinary object, not a type wrapper to convert or refuse. Numbers, strings, duplicate keys, invalid UTF-8
/// and nesting are read and checked as `ExtendedJSON` reads them.
public enum PlainJSON {
    /// Reads one top-level object.
    public static func parseDocument(_ bytes: [UInt8]) throws(ExtendedJSONError) -> BSONDocument {
        let value = try bytes.withUnsafeBufferPointer { buffer throws(ExtendedJSONError) in
            try ExtendedJSONReader.read(buffer, .document, readsTypeWrappers: false)
        }
        guard case .document(let document) = value else { preconditionFailure("reader returned a non-document") }
        return document
    }

    /// Reads any single value.
    public static func parseValue(_ bytes: [UInt8]) throws(ExtendedJSONError) -> BSON {
        try bytes.withUnsafeBufferPointer { buffer throws(ExtendedJSONError) in
            try ExtendedJSONReader.read(buffer, .value, readsTypeWrappers: false)
        }
    }
}
