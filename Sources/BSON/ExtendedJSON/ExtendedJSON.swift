/// MongoDB Extended JSON v2: reading text into BSON values and printing BSON values as text.
///
/// The reader accepts canonical, relaxed and the common legacy forms (`{"$binary": "…", "$type": "00"}`,
/// `{"$regex": "…", "$options": "…"}`, `{"$uuid": "…"}`); malformed type wrappers (among them what the
/// Extended JSON specification refuses: `{"$date": 42}`, a DBRef's `$ref` that is not a string),
/// duplicate keys, invalid UTF-8 and nesting deeper than `maximumDepth` are errors. The writer prints
/// compact text (no spaces), keys in document order.
public enum ExtendedJSON {
    /// The two output formats of the specification.
    public enum Mode: Sendable, Hashable {
        /// Keeps every type: `{"$numberInt":"1"}`, `{"$date":{"$numberLong":"0"}}`.
        case canonical
        /// Reads like ordinary JSON where it can: `1`, `1.5`, `{"$date":"1970-01-01T00:00:00Z"}`.
        case relaxed
    }

    /// Objects and arrays nested deeper than this are rejected (the specification asks for at least 200).
    public static let maximumDepth = 1000

    /// Reads one top-level document. Its own `$`-prefixed keys are kept as fields, as the specification says.
    public static func parseDocument(_ bytes: some Collection<UInt8>) throws(ExtendedJSONError) -> BSONDocument {
        let value = try read(bytes, .document)
        guard case .document(let document) = value else { preconditionFailure("reader returned a non-document") }
        return document
    }

    /// The same for bytes in an array (a request body): read in place, without the generic path's look-up of
    /// contiguous storage through the collection's witness table, which callers in other modules take.
    public static func parseDocument(_ bytes: [UInt8]) throws(ExtendedJSONError) -> BSONDocument {
        let value = try bytes.withUnsafeBufferPointer { buffer throws(ExtendedJSONError) in
            try ExtendedJSONReader.read(buffer, .document)
        }
        guard case .document(let document) = value else { preconditionFailure("reader returned a non-document") }
        return document
    }

    /// Reads either one document or a JSON array of documents.
    public static func parseDocuments(_ bytes: some Collection<UInt8>) throws(ExtendedJSONError) -> [BSONDocument] {
        switch try read(bytes, .documents) {
        case .document(let document): return [document]
        case .array(let elements): return elements.compactMap(\.documentValue)
        default: preconditionFailure("reader returned neither a document nor an array")
        }
    }

    /// Reads any single value; a type wrapper at the top (`{"$numberLong":"1"}`) becomes its BSON value.
    public static func parseValue(_ bytes: some Collection<UInt8>) throws(ExtendedJSONError) -> BSON {
        try read(bytes, .value)
    }

    public static func parseDocument(_ text: String) throws(ExtendedJSONError) -> BSONDocument {
        try parseDocument(text.utf8)
    }

    public static func parseDocuments(_ text: String) throws(ExtendedJSONError) -> [BSONDocument] {
        try parseDocuments(text.utf8)
    }

    public static func parseValue(_ text: String) throws(ExtendedJSONError) -> BSON {
        try parseValue(text.utf8)
    }

    private static func read(
        _ bytes: some Collection<UInt8>, _ top: ExtendedJSONReader.TopLevel
    ) throws(ExtendedJSONError) -> BSON {
        let result: Result<BSON, ExtendedJSONError>? = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(ExtendedJSONError) in try ExtendedJSONReader.read(buffer, top) }
        }
        if let result { return try result.get() }
        let copy = Array(bytes)
        return try copy.withUnsafeBufferPointer { buffer throws(ExtendedJSONError) in
            try ExtendedJSONReader.read(buffer, top)
        }
    }
}

extension BSONDocument {
    /// Reads a top-level Extended JSON document.
    public init(extendedJSON text: String) throws(ExtendedJSONError) {
        self = try ExtendedJSON.parseDocument(text)
    }

    /// The document as compact Extended JSON text.
    public func extendedJSON(mode: ExtendedJSON.Mode = .canonical) -> String {
        String(decoding: extendedJSONBytes(mode: mode), as: UTF8.self)
    }

    /// The document as compact Extended JSON, UTF-8 encoded.
    public func extendedJSONBytes(mode: ExtendedJSON.Mode = .canonical) -> [UInt8] {
        var writer = ExtendedJSONWriter(mode: mode)
        writer.write(self)
        return writer.output
    }

    /// Appends the document's Extended JSON to a buffer (for writing many documents without copies).
    public func appendExtendedJSON(to buffer: inout [UInt8], mode: ExtendedJSON.Mode = .canonical) {
        // Swap the buffer in and out so it stays uniquely referenced and is never copied.
        var writer = ExtendedJSONWriter(mode: mode, output: [])
        swap(&writer.output, &buffer)
        writer.write(self)
        swap(&writer.output, &buffer)
    }
}

extension BSON {
    /// The value as compact Extended JSON text (a type wrapper for types JSON lacks).
    public func extendedJSON(mode: ExtendedJSON.Mode = .canonical) -> String {
        String(decoding: extendedJSONBytes(mode: mode), as: UTF8.self)
    }

    /// The value as compact Extended JSON, UTF-8 encoded (a response body, without a string between).
    public func extendedJSONBytes(mode: ExtendedJSON.Mode = .canonical) -> [UInt8] {
        var writer = ExtendedJSONWriter(mode: mode)
        writer.write(self)
        return writer.output
    }
}
