import BSON

/// A collection's schema (`schema.json`): App Services' BSON schema, JSON Schema with `bsonType`. Writes made as
/// a user are validated against it inside the write; a document that does not fit fails the write with
/// `SchemaValidationFailedWrite`.
package struct DocumentSchema: Sendable, Equatable {
    /// The BSON type names a value may have (`bsonType`, or JSON Schema's `type` in BSON terms); nil allows any.
    var types: [String]?
    var required: [String] = []
    var properties: [String: DocumentSchema] = [:]
    var additionalProperties: AdditionalProperties = .allowed(true)
    var items: Items?
    var allowedValues: [BSON]?
    var minimum: Bound?
    var maximum: Bound?
    var minLength: Int?
    var maxLength: Int?
    var pattern: String?
    var minItems: Int?
    var maxItems: Int?
    var uniqueItems = false
    var minProperties: Int?
    var maxProperties: Int?

    package indirect enum AdditionalProperties: Sendable, Equatable {
        case allowed(Bool)
        case schema(DocumentSchema)
    }

    package indirect enum Items: Sendable, Equatable {
        /// Every element fits the schema.
        case each(DocumentSchema)
        /// Element `i` fits schema `i`.
        case tuple([DocumentSchema])
    }

    /// A numeric bound and whether it excludes its own value.
    package struct Bound: Sendable, Equatable {
        var value: Double
        var exclusive: Bool
    }

    /// The BSON type names `bsonType` accepts, with the aliases App Services allows.
    static let typeNames: Set<String> = [
        "double", "string", "object", "array", "binData", "objectId", "bool", "date", "null", "regex", "int",
        "timestamp", "long", "decimal", "uuid", "mixed", "number", "javascript", "symbol", "minKey", "maxKey",
        "undefined", "dbPointer",
    ]
    /// JSON Schema's `type` names as BSON types.
    static let jsonTypes: [String: [String]] = [
        "object": ["object"], "array": ["array"], "number": ["number"], "boolean": ["bool"], "string": ["string"],
        "null": ["null"],
    ]
}
