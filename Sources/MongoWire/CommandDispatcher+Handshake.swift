import BSON
import DocumentStore
import Foundation

/// The handshake and the server-information commands: a one-member replica set's primary, so drivers enable
/// sessions, retryable writes and change streams.
extension CommandDispatcher {
    static let setName = "switchyard"
    static let version = "7.0.0"
    static let maxWireVersion: Int32 = 21

    func hello(_ arguments: CommandArguments, client: ClientConnection) async throws -> BSONDocument {
        if let wait = try awaitedTopologyChange(arguments) { await awaitedHellos.wait(upTo: wait) }
        var reply: BSONDocument = [:]
        if arguments.name == "hello" {
            reply["isWritablePrimary"] = .bool(true)
        } else {
            reply["ismaster"] = .bool(true)
        }
        reply["topologyVersion"] = ["processId": .objectId(processId), "counter": .int64(0)]
        reply["hosts"] = [.string(host)]
        reply["setName"] = .string(Self.setName)
        reply["setVersion"] = .int32(1)
        reply["primary"] = .string(host)
        reply["me"] = .string(host)
        reply["secondary"] = .bool(false)
        reply["helloOk"] = .bool(true)
        reply["maxBsonObjectSize"] = .int32(Int32(WireLimits.maxBsonObjectSize))
        reply["maxMessageSizeBytes"] = .int32(Int32(WireLimits.maxMessageSizeBytes))
        reply["maxWriteBatchSize"] = .int32(Int32(WireLimits.maxWriteBatchSize))
        reply["localTime"] = .datetime(BSONDate(millisecondsSinceEpoch: Int64(Date().timeIntervalSince1970 * 1000)))
        reply["logicalSessionTimeoutMinutes"] = .int32(30)
        reply["connectionId"] = .int64(client.id)
        reply["minWireVersion"] = .int32(0)
        reply["maxWireVersion"] = .int32(Self.maxWireVersion)
        reply["readOnly"] = .bool(false)
        if let mechanisms = supportedMechanisms(arguments.command) { reply["saslSupportedMechs"] = mechanisms }
        if let speculative = speculativeAuthentication(arguments.command, client: client) {
            reply["speculativeAuthenticate"] = .document(speculative)
        }
        // Compression is agreed here: zlib when the client offers it.
        if case .array(let offered)? = arguments.command["compression"], offered.contains(.string("zlib")) {
            reply["compression"] = [.string("zlib")]
        }
        return CommandReply.ok(reply)
    }

    /// How long an awaitable hello waits: its `maxAwaitTimeMS` when it names this server's run and topology as it
    /// stands (a hello naming another run, or an older topology, is answered at once).
    private func awaitedTopologyChange(_ arguments: CommandArguments) throws(StoreError) -> Duration? {
        guard let known = try arguments.document("topologyVersion"),
            let milliseconds = try arguments.integer("maxAwaitTimeMS")
        else { return nil }
        guard milliseconds >= 0 else {
            throw StoreError(code: .badValue, message: "maxAwaitTimeMS must be a non-negative integer")
        }
        guard known["processId"] == .objectId(processId), known["counter"]?.int64Value == 0 else { return nil }
        // Capped at a day, which no driver asks for, so the timer's nanoseconds never overflow.
        return .milliseconds(min(milliseconds, 86_400_000))
    }

    func buildInfo() -> BSONDocument {
        CommandReply.ok([
            "version": .string(Self.version), "gitVersion": "switchyard",
            "versionArray": [.int32(7), .int32(0), .int32(0), .int32(0)], "bits": .int32(64), "debug": .bool(false),
            "maxBsonObjectSize": .int32(Int32(WireLimits.maxBsonObjectSize)), "storageEngines": ["sqlite"],
            "modules": [], "javascriptEngine": "none", "openssl": ["running": "none"],
        ])
    }

    func hostInfo() -> BSONDocument {
        let info = ProcessInfo.processInfo
        return CommandReply.ok([
            "system": [
                "currentTime": .datetime(BSONDate(millisecondsSinceEpoch: Int64(Date().timeIntervalSince1970 * 1000))),
                "hostname": .string(info.hostName), "cpuAddrSize": .int32(64),
                "memSizeMB": .int64(Int64(info.physicalMemory / 1_048_576)),
                "numCores": .int32(Int32(info.processorCount)),
                "cpuArch": "x86_64",
            ],
            "os": ["type": "Linux", "name": .string(info.operatingSystemVersionString)], "extra": [:],
        ])
    }

    func getParameter(_ arguments: CommandArguments) -> BSONDocument {
        let known: BSONDocument = [
            "featureCompatibilityVersion": ["version": "7.0"],
            "authenticationMechanisms": .array(
                users.isEmpty ? [] : ScramMechanism.allCases.map { .string($0.rawValue) }),
            "maxBSONDepth": .int32(100), "logLevel": .int32(0), "quiet": .bool(false),
        ]
        if arguments.command["getParameter"]?.stringValue == "*" || arguments.command["allParameters"] == .bool(true) {
            return CommandReply.ok(known)
        }
        var reply: BSONDocument = [:]
        for (key, value) in known where arguments.command[key] != nil { reply[key] = value }
        return CommandReply.ok(reply)
    }

    func connectionStatus(client: ClientConnection) -> BSONDocument {
        let user = client.authentication.user
        let authenticated: [BSON] = user.map { [["user": .string($0), "db": .string(WireUsers.database)]] } ?? []
        let roles: [BSON] = (user.map(self.users.roles(of:)) ?? []).map {
            ["role": .string($0.name.rawValue), "db": .string($0.database)]
        }
        return CommandReply.ok([
            "authInfo": ["authenticatedUsers": .array(authenticated), "authenticatedUserRoles": .array(roles)]
        ])
    }

    func serverStatus() -> BSONDocument {
        let uptime = Date().timeIntervalSince(startTime)
        return CommandReply.ok([
            "host": .string(host), "version": .string(Self.version), "process": "switchyard",
            "pid": .int64(Int64(ProcessInfo.processInfo.processIdentifier)), "uptime": .double(uptime.rounded()),
            "uptimeMillis": .int64(Int64(uptime * 1000)),
            "localTime": .datetime(BSONDate(millisecondsSinceEpoch: Int64(Date().timeIntervalSince1970 * 1000))),
            "connections": [
                "current": .int64(Int64(openConnections.load(ordering: .relaxed))),
                "available": .int64(Int64(maximumConnections - openConnections.load(ordering: .relaxed))),
            ],
            "metrics": ["cursor": ["open": ["total": .int64(Int64(cursors.count))]]],
            "repl": ["setName": .string(Self.setName), "isWritablePrimary": .bool(true), "hosts": [.string(host)]],
        ])
    }

    static func listCommands() -> BSONDocument {
        var commands: BSONDocument = [:]
        for name in commandNames {
            commands[name] = ["help": "", "requiresAuth": .bool(false), "adminOnly": .bool(false)]
        }
        return CommandReply.ok(["commands": .document(commands)])
    }

    static func getLog(_ arguments: CommandArguments) -> BSONDocument {
        if arguments.command["getLog"]?.stringValue == "*" {
            return CommandReply.ok(["names": ["global", "startupWarnings"]])
        }
        return CommandReply.ok(["totalLinesWritten": .int32(0), "log": []])
    }

    func endSessions(_ arguments: CommandArguments) async -> BSONDocument {
        if case .array(let sessions)? = arguments.command[arguments.name] {
            for session in sessions {
                guard let id = session.documentValue?["id"] else { continue }
                retryableWrites.forget(session: id)
                await transactions.end(session: id)
            }
        }
        return CommandReply.ok()
    }
}
