import BSON
import DocumentStore

/// The shapes of replies: `{ok: 1, …}` and MongoDB's error `{ok: 0, errmsg, code, codeName}`.
enum CommandReply {
    static func ok(_ fields: BSONDocument = [:]) -> BSONDocument {
        var reply = fields
        reply["ok"] = .double(1)
        return reply
    }

    static func error(code: StoreError.Code, message: String) -> BSONDocument {
        [
            "ok": .double(0), "errmsg": .string(message), "code": .int32(Int32(truncatingIfNeeded: code.rawValue)),
            "codeName": .string(codeNames[code.rawValue] ?? StoreError(code: code, message: "").codeName),
        ]
    }

    /// The names of the codes only the wire protocol answers with (the store names its own).
    private static let codeNames: [Int: String] = [
        1: "InternalError", 13: "Unauthorized", 16: "InvalidLength", 17: "ProtocolError", 18: "AuthenticationFailed",
        43: "CursorNotFound", 59: "CommandNotFound", 73: "InvalidNamespace", 96: "OperationFailed",
        117: "ConflictingOperationInProgress", 225: "TransactionTooOld", 251: "NoSuchTransaction",
        256: "TransactionCommitted", 263: "OperationNotSupportedInTransaction", 352: "UnsupportedOpQueryCommand",
    ]

    static func error(_ error: StoreError) -> BSONDocument {
        Self.error(code: error.code, message: error.message)
    }

    /// A cursor's reply: `{cursor: {id, ns, firstBatch|nextBatch, postBatchResumeToken?}, ok: 1}`.
    static func cursor(
        id: Int64, namespace: String, batch: [BSONDocument], first: Bool, postBatchResumeToken: BSONDocument? = nil
    ) -> BSONDocument {
        var cursor: BSONDocument = [
            first ? "firstBatch" : "nextBatch": .array(batch.map { .document($0) }), "id": .int64(id),
            "ns": .string(namespace),
        ]
        if let postBatchResumeToken { cursor["postBatchResumeToken"] = .document(postBatchResumeToken) }
        return ok(["cursor": .document(cursor)])
    }
}
