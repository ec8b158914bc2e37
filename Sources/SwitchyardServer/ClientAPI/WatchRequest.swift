import BSON
import DocumentStore
import Foundation
import Switchyard

/// A Realm SDK's `collection.watch()` as realm-core's `make_streaming_request` sends it: `baas_request` is the
/// base64 of the JSON `{name: "watch", arguments: [{database, collection, ids?, filter?}], service}`, percent-encoded
/// in the query. `ids` keeps the events of those documents (`documentKey._id`), `filter` is a `$match` over the
/// change event (`{"fullDocument.title": …}`, `{"operationType": "insert"}`); given both, an event passes both.
struct WatchRequest {
    let namespace: Namespace
    /// The change stream's stages: the `$match` of `ids`, then that of `filter`.
    let pipeline: [BSONDocument]

    init(baasRequest: String?) throws(APIError) {
        guard let encoded = baasRequest, !encoded.isEmpty else {
            throw Self.invalid(
                "a streaming call needs 'baas_request', the base64 of the JSON {name, arguments, service}")
        }
        let call = try Self.decode(encoded)
        guard let name = call["name"]?.stringValue, !name.isEmpty else {
            throw Self.invalid("the streaming call must name the function ('name')")
        }
        guard call["service"]?.stringValue == MongoDBService.defaultName else {
            throw APIError(
                status: 404, code: "FunctionNotFound",
                message:
                    "function not found: '\(name.prefix(64))' cannot be streamed (clients can stream '\(MongoDBService.defaultName)' service's 'watch')"
            )
        }
        guard name == "watch" else {
            throw APIError(
                status: 404, code: "FunctionNotFound",
                message:
                    "function not found: '\(name.prefix(64))' is not a streaming action of the mongodb-atlas service")
        }
        guard let arguments = call["arguments"]?.arrayValue, arguments.count == 1,
            let argument = arguments[0].documentValue
        else { throw Self.invalid("watch takes one argument, a document naming the database and collection") }
        guard let database = argument["database"]?.stringValue, !database.isEmpty,
            let collection = argument["collection"]?.stringValue, !collection.isEmpty
        else { throw Self.invalid("watch needs 'database' and 'collection', non-empty strings") }
        namespace = Namespace(database: database, collection: collection)
        var pipeline: [BSONDocument] = []
        switch argument["ids"] {
        case nil, .null?: break
        case .array(let ids)?: pipeline.append(["$match": ["documentKey._id": ["$in": .array(ids)]]])
        default: throw Self.invalid("watch: 'ids' must be an array of document ids")
        }
        switch argument["filter"] {
        case nil, .null?: break
        case .document(let filter)?: pipeline.append(["$match": .document(filter)])
        default: throw Self.invalid("watch: 'filter' must be a document (a match on the change event)")
        }
        self.pipeline = pipeline
    }

    /// Standard base64 (realm-core's) or its URL-safe form, padded or not; a `+` that a form decoder read as a
    /// space is taken back.
    private static func decode(_ encoded: String) throws(APIError) -> BSONDocument {
        var text = String(
            encoded.map { character -> Character in
                switch character {
                case "-": "+"
                case "_": "/"
                case " ": "+"
                default: character
                }
            })
        text += String(repeating: "=", count: (4 - text.utf8.count % 4) % 4)
        guard let bytes = Data(base64Encoded: text) else {
            throw invalid("'baas_request' is not base64")
        }
        do {
            return try ExtendedJSON.parseDocument(Array(bytes))
        } catch {
            throw invalid("'baas_request' holds malformed JSON at \(error.line):\(error.column): \(error.message)")
        }
    }

    private static func invalid(_ message: String) -> APIError {
        APIError(status: 400, code: "InvalidParameter", message: message)
    }
}
