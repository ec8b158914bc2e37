/// Bytes that are not a valid BSON document. `offset` is where the problem was found, counted from the
/// first byte of the input; `reason` says which kind of problem, `message` says it in words.
public struct BSONDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A kind of malformation. A struct, not an enum, so that new kinds can be added without breaking callers.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        public let name: String
        init(_ name: String) { self.name = name }
        public var description: String { name }

        /// A length field is negative, too small for what it frames, or inconsistent with another length.
        public static let invalidLength = Reason("invalidLength")
        /// A length or value runs past the end of the input or of its enclosing document.
        public static let truncated = Reason("truncated")
        /// The input continues after the document's declared end.
        public static let trailingBytes = Reason("trailingBytes")
        /// A string, document or key does not end with the NUL byte where it must.
        public static let missingTerminator = Reason("missingTerminator")
        /// A string, key or regular expression is not valid UTF-8.
        public static let invalidUTF8 = Reason("invalidUTF8")
        /// An element has a type byte no BSON type uses.
        public static let unknownType = Reason("unknownType")
        /// A boolean byte other than 0 or 1.
        public static let invalidBoolean = Reason("invalidBoolean")
        /// Old binary subtype 2 whose inner length disagrees with the outer one.
        public static let invalidBinary = Reason("invalidBinary")
        /// A key occurs twice in one document.
        public static let duplicateKey = Reason("duplicateKey")
        /// Documents and arrays nest deeper than `BSONDocument.maximumNestingDepth`.
        public static let nestingTooDeep = Reason("nestingTooDeep")
    }

    public let reason: Reason
    public let offset: Int
    public let message: String

    public init(_ reason: Reason, at offset: Int, _ message: String) {
        self.reason = reason
        self.offset = offset
        self.message = message
    }

    public var description: String { "invalid BSON at byte \(offset): \(message)" }
}

/// A document that cannot be written as BSON. `path` is the dotted path of the offending field.
public struct BSONEncodingError: Error, Sendable, Equatable, CustomStringConvertible {
    public let path: String
    public let message: String

    public init(path: String, _ message: String) {
        self.path = path
        self.message = message
    }

    func within(_ key: String) -> BSONEncodingError {
        BSONEncodingError(path: path.isEmpty ? key : key + "." + path, message)
    }

    public var description: String {
        path.isEmpty ? "cannot encode BSON: \(message)" : "cannot encode BSON field '\(path)': \(message)"
    }
}
