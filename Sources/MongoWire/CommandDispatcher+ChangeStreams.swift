import BSON
import DocumentStore

/// `aggregate` with `$changeStream` on a collection, a database (`aggregate: 1`) or the whole deployment
/// (`allChangesForCluster` on admin). Tokens are the store's change-log tokens, the ones triggers save.
extension CommandDispatcher {
    func openChangeStream(
        _ arguments: CommandArguments, pipeline: [BSONDocument], database: String, client: ClientConnection
    ) async throws -> BSONDocument {
        guard let specification = pipeline[0]["$changeStream"]?.documentValue else {
            throw StoreError(code: .failedToParse, message: "the $changeStream stage takes a document")
        }
        var options = ChangeStreamOptions()
        for (key, value) in specification {
            switch key {
            case "fullDocument":
                guard let text = value.stringValue, let mode = ChangeStreamOptions.FullDocument(rawValue: text) else {
                    throw StoreError(code: .badValue, message: "unknown fullDocument mode \(value)")
                }
                options.fullDocument = mode
            case "fullDocumentBeforeChange":
                guard let text = value.stringValue,
                    let mode = ChangeStreamOptions.FullDocumentBeforeChange(rawValue: text)
                else { throw StoreError(code: .badValue, message: "unknown fullDocumentBeforeChange mode \(value)") }
                options.fullDocumentBeforeChange = mode
            case "resumeAfter", "startAfter":
                guard let document = value.documentValue, let token = ResumeToken(document) else {
                    throw StoreError(code: .invalidResumeToken, message: "\(key) is not a resume token of this server")
                }
                if key == "resumeAfter" { options.resumeAfter = token } else { options.startAfter = token }
            case "allChangesForCluster", "showExpandedEvents":
                guard let flag = value.boolValue else {
                    throw StoreError(code: .typeMismatch, message: "$changeStream.\(key) takes a boolean")
                }
                if key == "showExpandedEvents" { options.showExpandedEvents = flag }
            case "startAtOperationTime":
                guard case .timestamp(let time) = value else {
                    throw StoreError(
                        code: .typeMismatch, message: "$changeStream.startAtOperationTime takes a timestamp")
                }
                options.startAtOperationTime = time
            default:
                throw StoreError(code: 40415, message: "BSON field '$changeStream.\(key)' is an unknown field.")
            }
        }
        let starts = ["resumeAfter", "startAfter", "startAtOperationTime"].filter { specification[$0] != nil }
        guard starts.count <= 1 else {
            throw StoreError(
                code: 40674, message: "Only one type of resume option is allowed, but multiple were found: \(starts)")
        }
        let rest = Array(pipeline.dropFirst())
        let stream: ChangeStream
        let namespace: String
        let allChanges = specification["allChangesForCluster"]?.boolValue ?? false
        switch arguments.command["aggregate"] {
        case .string(let collection)?:
            stream = try await store.database(database).collection(collection).watch(rest, options: options)
            namespace = "\(database).\(collection)"
        case let value? where value.isNumber && value.doubleValue == 1:
            if allChanges {
                guard database == "admin" else {
                    throw StoreError(
                        code: .invalidOptions,
                        message: "$changeStream with allChangesForCluster:true must be run on the 'admin' database")
                }
                stream = try await store.watch(rest, options: options)
            } else {
                guard database != "admin" else {
                    throw StoreError(
                        code: 73, message: "a database change stream on 'admin' needs allChangesForCluster: true")
                }
                stream = try await store.database(database).watch(rest, options: options)
            }
            namespace = "\(database).$cmd.aggregate"
        default:
            throw StoreError(code: .typeMismatch, message: "aggregate takes a collection name or 1")
        }
        let cursor = ChangeStreamCursor(stream: stream)
        let batchSize = try arguments.document("cursor").flatMap { try CommandArguments($0).integer("batchSize") }
        // The first batch waits for nothing: the driver's getMore waits, with its maxAwaitTimeMS.
        let first = try await cursor.next(limit: batchSize ?? Self.defaultBatchSize, wait: .zero)
        let id: Int64
        if first.finished {
            id = 0
        } else {
            do {
                id = try cursors.open(.changeStream(cursor), namespace: namespace, connection: client.id)
            } catch {
                cursor.cancel()
                throw error
            }
        }
        return CommandReply.cursor(
            id: id, namespace: namespace, batch: first.events, first: true,
            postBatchResumeToken: first.postBatchResumeToken)
    }
}
