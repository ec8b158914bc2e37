import BSON
import DocumentStore
import Foundation
import Synchronization

/// Runs a command read off the wire against the store and answers it in MongoDB's shapes: what a driver expects of
/// a one-member replica set's primary. It calls the store only (never the trigger runtime): a write here is a write
/// like any other, and its change events reach triggers and change streams the same way.
package final class CommandDispatcher: Sendable {
    let store: DocumentStore
    /// `host:port` as the handshake reports it (`hosts`, `me`, `primary`).
    let host: String
    let cursors = CursorRegistry()
    let retryableWrites = RetryableWrites()
    let transactions: WireTransactions
    let awaitedHellos = AwaitedHellos()
    /// Identifies this server's run in `topologyVersion`, new at every start.
    let processId = ObjectId()
    let startTime = Date()
    /// Kept by the server as connections open and close, for serverStatus.
    let openConnections = Atomic<Int>(0)

    /// The connection bound, for serverStatus's `available`.
    let maximumConnections: Int
    /// Who may connect; with none, every connection may run every command.
    let users: WireUsers

    init(
        store: DocumentStore, host: String, maximumConnections: Int, transactionLifetime: Duration, users: WireUsers
    ) {
        self.store = store
        self.host = host
        self.maximumConnections = maximumConnections
        self.transactions = WireTransactions(lifetime: transactionLifetime)
        self.users = users
    }

    func close() {
        cursors.closeAll()
        awaitedHellos.close()
    }

    /// Every command this server answers, for listCommands.
    static let commandNames: [String] = [
        "abortTransaction", "aggregate", "buildInfo", "collMod", "commitTransaction", "connectionStatus", "count",
        "create",
        "createIndexes", "dbStats", "delete",
        "distinct", "drop", "dropDatabase", "dropIndexes", "endSessions", "explain", "find", "findAndModify",
        "getCmdLineOpts", "getLog", "getMore", "getParameter", "hello", "hostInfo", "insert", "isMaster",
        "killCursors", "killSessions", "listCollections", "listCommands", "listDatabases", "listIndexes", "logout",
        "ping", "renameCollection", "saslContinue", "saslStart", "serverStatus", "update", "whatsmyuri",
    ]

    /// Runs the command named `name`; nil when there is no such command.
    private func handle(_ name: String, _ arguments: CommandArguments, database: String, client: ClientConnection)
        async throws -> BSONDocument?
    {
        switch name {
        case "hello", "isMaster", "ismaster": return try await hello(arguments, client: client)
        case "ping": return CommandReply.ok()
        case "buildInfo", "buildinfo": return buildInfo()
        case "hostInfo": return hostInfo()
        case "getParameter": return getParameter(arguments)
        case "getCmdLineOpts":
            return CommandReply.ok(["argv": .array(CommandLine.arguments.map { .string($0) }), "parsed": [:]])
        case "connectionStatus": return connectionStatus(client: client)
        case "saslStart": return saslStart(arguments.command, database: database, client: client)
        case "saslContinue": return saslContinue(arguments.command, client: client)
        case "logout":
            client.authentication.logOut()
            return CommandReply.ok()
        case "serverStatus": return serverStatus()
        case "listCommands": return Self.listCommands()
        case "getLog": return Self.getLog(arguments)
        case "whatsmyuri": return CommandReply.ok(["you": .string(client.peer)])
        case "endSessions", "killSessions": return await endSessions(arguments)
        case "commitTransaction", "abortTransaction":
            throw StoreError(code: .invalidOptions, message: "\(name) must be run within a transaction")
        case "killAllSessions", "refreshSessions": return CommandReply.ok()
        case "insert": return try await insert(arguments, database: database)
        case "update": return try await update(arguments, database: database)
        case "delete": return try await delete(arguments, database: database)
        case "findAndModify", "findandmodify": return try await findAndModify(arguments, database: database)
        case "find": return try await find(arguments, database: database, client: client)
        case "getMore": return try await getMore(arguments, database: database)
        case "killCursors": return try await killCursors(arguments, database: database)
        case "aggregate": return try await aggregate(arguments, database: database, client: client)
        case "count": return try await count(arguments, database: database)
        case "distinct": return try await distinct(arguments, database: database)
        case "explain": return try await explain(arguments, database: database)
        case "create": return try await create(arguments, database: database)
        case "collMod": return try await collMod(arguments, database: database)
        case "drop": return try await drop(arguments, database: database)
        case "dropDatabase": return try await dropDatabase(arguments, database: database)
        case "renameCollection": return try await renameCollection(arguments, database: database)
        case "createIndexes": return try await createIndexes(arguments, database: database)
        case "listIndexes": return try await listIndexes(arguments, database: database, client: client)
        case "dropIndexes", "deleteIndexes": return try await dropIndexes(arguments, database: database)
        case "listDatabases": return try await listDatabases(arguments, client: client)
        case "listCollections": return try await listCollections(arguments, database: database, client: client)
        case "dbStats": return try await dbStats(arguments, database: database)
        default: return nil
        }
    }

    /// The writes a retry with the same `lsid` and `txnNumber` must not apply twice.
    static let retryableCommands: Set<String> = ["insert", "update", "delete", "findAndModify", "findandmodify"]

    /// Answers one request; never throws: every failure is a MongoDB error reply.
    package func run(_ request: WireRequest, client: ClientConnection) async -> BSONDocument {
        let arguments = CommandArguments(request.command)
        if let refusal = refusal(arguments, database: request.database, client: client) { return refusal }
        if request.command["startTransaction"] != nil || request.command["autocommit"] != nil {
            return await runInTransaction(request, arguments, client: client)
        }
        let session = request.command["lsid"]?.documentValue?["id"]
        let txnNumber = request.command["txnNumber"]?.int64Value
        let retryable =
            Self.retryableCommands.contains(arguments.name) ? session.flatMap { s in txnNumber.map { (s, $0) } } : nil
        if let (session, txnNumber) = retryable,
            let reply = retryableWrites.reply(session: session, txnNumber: txnNumber)
        {
            return reply
        }
        let reply = await answer(arguments, database: request.database, client: client)
        if let (session, txnNumber) = retryable, reply["ok"] == .double(1) {
            retryableWrites.record(session: session, txnNumber: txnNumber, reply: reply)
        }
        return reply
    }

    /// The command's reply, its failure as MongoDB's error reply.
    func answer(_ arguments: CommandArguments, database: String, client: ClientConnection) async -> BSONDocument {
        do {
            guard let answer = try await handle(arguments.name, arguments, database: database, client: client)
            else { return CommandReply.error(code: 59, message: "no such command: '\(arguments.name)'") }
            return answer
        } catch let error as StoreError {
            return CommandReply.error(error)
        } catch let error as WireError {
            return CommandReply.error(code: error.code, message: error.message)
        } catch {
            return CommandReply.error(code: 1, message: "\(error)")
        }
    }

    func collection(_ arguments: CommandArguments, database: String) throws(StoreError) -> DocumentCollection {
        store.database(database).collection(try arguments.collection())
    }
}
