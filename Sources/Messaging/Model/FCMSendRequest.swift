import BSON

/// The body of an FCM v1 `messages:send` request: the message and the dry-run flag.
package struct FCMSendRequest: Sendable, Equatable {
    package var message: PushMessage
    /// FCM checks the message and answers without delivering it.
    package var validateOnly: Bool

    package init(message: PushMessage, validateOnly: Bool = false) {
        self.message = message
        self.validateOnly = validateOnly
    }

    /// `{"message":{…}}`, plus `"validate_only":true` after it when set.
    package var document: BSONDocument {
        var document: BSONDocument = ["message": .document(message.document)]
        if validateOnly { document.append("validate_only", .bool(true)) }
        return document
    }

    /// The request as compact JSON.
    package var json: [UInt8] { document.extendedJSONBytes(mode: .relaxed) }

    /// Reads a request body as the FCM endpoint does (`validate_only` or `validateOnly`).
    package init(document: BSONDocument) throws(PushError) {
        let reader = try FCMObjectReader(.document(document), path: "request", fields: ["validate_only", "message"])
        guard let message = try reader.value("message") else {
            throw PushError(code: .invalidArgument, message: "Missing required field 'message'.", field: "message")
        }
        guard case .document(let messageDocument) = message else {
            throw FCMObjectReader.invalidValue(at: "message", expected: "object", message)
        }
        self.init(
            message: try PushMessage(document: messageDocument), validateOnly: try reader.bool("validate_only") ?? false
        )
    }

    /// Reads a JSON request body as plain JSON, as FCM does (`{"$numberLong": "5"}` is an object, not a number);
    /// malformed JSON is an `invalidArgument` error with its line and column.
    package init(json: some Collection<UInt8>) throws(PushError) {
        let document: BSONDocument
        do {
            document = try PlainJSON.parseDocument(Array(json))
        } catch {
            throw PushError(code: .invalidArgument, message: "Invalid JSON payload received. \(error)")
        }
        try self.init(document: document)
    }
}
