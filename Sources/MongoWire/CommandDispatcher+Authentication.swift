import BSON
import DocumentStore

/// SCRAM authentication (`saslStart`, `saslContinue`, `hello`'s `saslSupportedMechs` and
/// `speculativeAuthenticate`) and the check that turns away an unauthenticated connection's commands, when the
/// server has users. Failures never echo a payload: it carries the client's proof.
extension CommandDispatcher {
    /// What a connection may run before it authenticated: the handshake, the exchange itself, and `ping`.
    static let commandsBeforeAuthentication: Set<String> = [
        "hello", "isMaster", "ismaster", "saslStart", "saslContinue", "ping", "buildInfo", "buildinfo", "logout",
    ]

    /// The refusal of a command the connection may not run (unauthenticated, or beyond its user's roles); nil when it
    /// may run it.
    func refusal(_ arguments: CommandArguments, database: String, client: ClientConnection) -> BSONDocument? {
        guard !users.isEmpty else { return nil }
        let name = arguments.name
        guard let user = client.authentication.user else {
            if Self.commandsBeforeAuthentication.contains(name) { return nil }
            return CommandReply.error(code: 13, message: "command \(name) requires authentication")
        }
        let roles = users.roles(of: user)
        for (action, target) in WireAuthorization.needs(arguments, database: database) ?? []
        where !roles.contains(where: { $0.allows(action, on: target) }) {
            let held = roles.isEmpty ? "no roles" : roles.map(\.description).joined(separator: ", ")
            return CommandReply.error(
                code: 13,
                message:
                    "not authorized on \(target ?? "every database") to execute command \(name): user \(user) holds \(held)"
            )
        }
        return nil
    }

    /// The databases the connection's user may list: nil for all (no users, or a role on every database).
    func listableDatabases(client: ClientConnection) -> Set<String>? {
        guard !users.isEmpty, let user = client.authentication.user else { return nil }
        let roles = users.roles(of: user)
        if roles.contains(where: \.name.isForEveryDatabase) { return nil }
        return Set(roles.map(\.database))
    }

    func saslStart(_ command: BSONDocument, database: String, client: ClientConnection) -> BSONDocument {
        client.authentication.conversation = nil
        guard let name = command["mechanism"]?.stringValue else {
            return CommandReply.error(code: 2, message: "saslStart needs a mechanism")
        }
        guard let mechanism = ScramMechanism(rawValue: name) else {
            return CommandReply.error(
                code: 2,
                message: "unsupported mechanism '\(name)'; this server offers SCRAM-SHA-256 and SCRAM-SHA-1")
        }
        guard let payload = Self.payload(command) else {
            return CommandReply.error(code: 2, message: "saslStart needs a payload")
        }
        let users = self.users
        do {
            let (scram, serverFirst) = try ScramConversation.start(
                mechanism: mechanism, payload: payload,
                credential: { database == WireUsers.database ? users.credential($0, mechanism) : nil },
                standIn: { users.standIn($0, mechanism) })
            client.authentication.conversation = .init(
                scram: scram, proven: false, skipsEmptyExchange: Self.skipsEmptyExchange(command))
            return Self.saslReply(done: false, payload: serverFirst)
        } catch {
            return Self.authenticationFailed(error)
        }
    }

    func saslContinue(_ command: BSONDocument, client: ClientConnection) -> BSONDocument {
        guard var conversation = client.authentication.conversation,
            command["conversationId"]?.int64Value == Self.conversationId
        else {
            client.authentication.conversation = nil
            return CommandReply.error(code: 17, message: "no SCRAM conversation is under way on this connection")
        }
        guard let payload = Self.payload(command) else {
            client.authentication.conversation = nil
            return CommandReply.error(code: 2, message: "saslContinue needs a payload")
        }
        if conversation.proven {
            // The client's empty answer to the server's signature.
            client.authentication.authenticated(as: conversation.scram.user)
            return Self.saslReply(done: true, payload: [])
        }
        do {
            let serverFinal = try conversation.scram.finish(payload: payload)
            // Drivers that offered to skip the empty exchange (skipEmptyExchange) are done now.
            if conversation.skipsEmptyExchange {
                client.authentication.authenticated(as: conversation.scram.user)
                return Self.saslReply(done: true, payload: serverFinal)
            }
            conversation.proven = true
            client.authentication.conversation = conversation
            return Self.saslReply(done: false, payload: serverFinal)
        } catch {
            client.authentication.conversation = nil
            return Self.authenticationFailed(error)
        }
    }

    /// `speculativeAuthenticate` in a `hello`: the embedded `saslStart` runs now, and its answer rides in the
    /// hello's reply, saving a round trip; anything else there is left for the ordinary exchange.
    func speculativeAuthentication(_ hello: BSONDocument, client: ClientConnection) -> BSONDocument? {
        guard !users.isEmpty, case .document(let start)? = hello["speculativeAuthenticate"],
            start["saslStart"] != nil
        else { return nil }
        let database = start["db"]?.stringValue ?? WireUsers.database
        var reply = saslStart(start, database: database, client: client)
        guard reply["ok"] == .double(1) else { return nil }
        reply["ok"] = nil
        return reply
    }

    /// `saslSupportedMechs: "db.user"` in a hello: both mechanisms, for every user asked about, known or not.
    func supportedMechanisms(_ hello: BSONDocument) -> BSON? {
        guard !users.isEmpty, hello["saslSupportedMechs"]?.stringValue != nil else { return nil }
        return .array(ScramMechanism.allCases.map { .string($0.rawValue) })
    }

    static let conversationId: Int64 = 1

    static func skipsEmptyExchange(_ command: BSONDocument) -> Bool {
        command["options"]?.documentValue?["skipEmptyExchange"] == .bool(true)
    }

    private static func payload(_ command: BSONDocument) -> [UInt8]? {
        switch command["payload"] {
        case .binary(let binary)?: binary.data
        case .string(let text)?: Array(text.utf8)
        default: nil
        }
    }

    private static func saslReply(done: Bool, payload: [UInt8]) -> BSONDocument {
        CommandReply.ok([
            "conversationId": .int32(Int32(conversationId)), "done": .bool(done),
            "payload": .binary(BSONBinary(data: payload)),
        ])
    }

    private static func authenticationFailed(_ error: ScramFailure) -> BSONDocument {
        CommandReply.error(code: 18, message: error.message)
    }
}
