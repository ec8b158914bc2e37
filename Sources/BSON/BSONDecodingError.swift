/// Bytes that are not a valid BSON document. `offset` is where the problem was found, counted from the
/// first byte of the input; `reason` says which kind of problem, `message` says it in words.
package struct BSONDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A kind of malformation. A struct, not an enum, so that new kinds can be added without breaking callers.
    package struct Reason: Hashable, Sendable, CustomStringConvertible {
        package let name: String
        init(_ name: String) { self.name = name }
        package var description: String { name }

        /// A length field is negative, too small for what it frames, or inconsistent with another length.
        package static let invalidLength = Reason("invalidLength")
        /// A length or value runs past the end of the input or of its enclosing document.
        package static let truncated = Reason("truncated")
        /// The input continues after the document's declared end.
        package static let trailingBytes = Reason("trailingBytes")
        /// A string, document or key does not end with the NUL byte where it must.
        package static let missingTerminator = Reason("missingTerminator")
        /// A string, key or regular expression is not valid UTF-8.
        package static let invalidUTF8 = Reason("invalidUTF8")
        /// An element has a type byte no BSON type uses.
        package static let unknownType = Reason("unknownType")
        /// A boolean byte other than 0 or 1.
        package static let invalidBoolean = Reason("invalidBoolean")
        /// Old binary subtype 2 whose inner length disagrees with the outer one.
        package static let invalidBinary = Reason("invalidBinary")
        /// A key occurs twice in one document.
        package static let duplicateKey = Reason("duplicateKey")
        /// Documents and arrays nest deeper than `BSONDocument.maximumNestingDepth`.
        package static let nestingTooDeep = Reason("nestingTooDeep")
    }

    package let reason: Reason
    package let offset: Int
    package let message: String

    package init(_ reason: Reason, at offset: Int, _ message: String) {
        self.reason = reason
        self.offset = offset
        self.message = message
    }

    package var description: String { "invalid BSON at byte \(offset): \(message)" }
}

/// A document that cannot be written as BSON. `path` is the dotted path of the offending field.
package struct BSONEncodingError: Error, Sendable, Equatable, CustomStringConvertible {
    package let path: String
    package let message: String

    package init(path: String, _ message: String) {
        self.path = path
        self.message = message
    }

    func within(_ key: String) -> BSONEncodingError {
        BSONEncodingError(path: path.isEmpty ? key : key + "." + path, message)
    }

    package var description: String {
        path.isEmpty ? "cannot encode BSON: \(message)" : "cannot encode BSON field '\(path)': \(message)"
    }
}
