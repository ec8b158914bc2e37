import BSON
import DocumentStore

/// Multi-statement transactions: a command with `autocommit: false` (and `startTransaction: true` for the first)
/// runs in its session's transaction, a store transaction that holds the writer until `commitTransaction` or
/// `abortTransaction` (see `StoreTransaction`). As in MongoDB, a statement that fails aborts the transaction.
extension CommandDispatcher {
    /// What a transaction may run; MongoDB refuses the rest with OperationNotSupportedInTransaction.
    static let transactionCommands: Set<String> = [
        "find", "getMore", "killCursors", "insert", "update", "delete", "findAndModify", "findandmodify", "aggregate",
        "distinct", "commitTransaction", "abortTransaction",
    ]

    func runInTransaction(_ request: WireRequest, _ arguments: CommandArguments, client: ClientConnection) async
        -> BSONDocument
    {
        let transaction: StoreTransaction
        let txnNumber: Int64
        do {
            (transaction, txnNumber) = try await sessionTransaction(request.command, arguments)
        } catch {
            return Self.transactionError(error)
        }
        let state = transaction.currentState
        switch (arguments.name, state) {
        case ("commitTransaction", .committed): return CommandReply.ok()
        case (_, .committed):
            return CommandReply.error(code: 256, message: "Transaction \(txnNumber) has been committed.")
        case (_, .aborted), (_, .expired):
            return Self.transactionError(
                StoreError(
                    code: 251,
                    message: state == .expired
                        ? "Transaction \(txnNumber) has been aborted: it exceeded transactionLifetimeLimitSeconds"
                        : "Transaction \(txnNumber) has been aborted."))
        default: break
        }
        switch arguments.name {
        case "commitTransaction":
            do {
                try await transaction.commit()
                return CommandReply.ok()
            } catch {
                return Self.transactionError(error)
            }
        case "abortTransaction":
            await transaction.abort()
            return CommandReply.ok()
        default:
            let reply = await transaction.run { await answer(arguments, database: request.database, client: client) }
            if reply["ok"] != .double(1) || reply["writeErrors"] != nil { await transaction.abort() }
            return Self.labelled(reply)
        }
    }

    /// The session's transaction the command runs in, started when it has `startTransaction: true`.
    private func sessionTransaction(_ command: BSONDocument, _ arguments: CommandArguments) async throws
        -> (StoreTransaction, Int64)
    {
        guard command["autocommit"] == .bool(false) else {
            throw StoreError(
                code: .invalidOptions,
                message: "a transaction's commands need autocommit: false, the only value allowed")
        }
        guard let session = command["lsid"]?.documentValue?["id"] else {
            throw StoreError(code: .invalidOptions, message: "a transaction's commands need a session (lsid)")
        }
        guard let txnNumber = command["txnNumber"]?.int64Value else {
            throw StoreError(
                code: .invalidOptions, message: "txnNumber must be provided for a multi-document transaction")
        }
        guard Self.transactionCommands.contains(arguments.name) else {
            throw StoreError(
                code: 263, message: "Cannot run '\(arguments.name)' in a multi-document transaction.")
        }
        if arguments.name == "aggregate", let pipeline = try arguments.documents("pipeline"),
            let stage = pipeline.lazy.compactMap(\.keys.first).first(where: {
                ["$changeStream", "$out", "$merge"].contains($0)
            })
        {
            throw StoreError(code: 263, message: "\(stage) cannot be used in a transaction")
        }
        switch command["startTransaction"] {
        case nil:
            return (try transactions.transaction(session: session, txnNumber: txnNumber), txnNumber)
        case .bool(true)?:
            guard arguments.name != "commitTransaction", arguments.name != "abortTransaction" else {
                throw StoreError(code: .invalidOptions, message: "\(arguments.name) cannot start a transaction")
            }
            return (try await transactions.start(session: session, txnNumber: txnNumber, store: store), txnNumber)
        default:
            throw StoreError(code: .invalidOptions, message: "startTransaction takes true, the only value allowed")
        }
    }

    private static func transactionError(_ error: any Error) -> BSONDocument {
        switch error {
        case let error as StoreError: labelled(CommandReply.error(error))
        default: CommandReply.error(code: 1, message: "\(error)")
        }
    }

    /// NoSuchTransaction carries MongoDB's TransientTransactionError label: a driver may run the whole
    /// transaction again.
    private static func labelled(_ reply: BSONDocument) -> BSONDocument {
        guard reply["code"] == .int32(251) else { return reply }
        var reply = reply
        reply["errorLabels"] = ["TransientTransactionError"]
        return reply
    }
}
