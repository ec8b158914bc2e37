import BSON

/// What a command needs of its user's roles: each action it takes and the database it takes it on.
enum WireAuthorization {
    /// Commands every authenticated user may run: the handshake, the session and transaction bookkeeping, and
    /// `listDatabases` (which lists only the databases the user holds a role on).
    static let open: Set<String> = [
        "hello", "isMaster", "ismaster", "ping", "buildInfo", "buildinfo", "connectionStatus", "saslStart",
        "saslContinue", "logout", "whatsmyuri", "listCommands", "endSessions", "killSessions", "killAllSessions",
        "refreshSessions", "commitTransaction", "abortTransaction", "getParameter", "listDatabases",
    ]

    /// The actions `arguments` takes run on `database`, and where (nil: every database); nil for an unknown command,
    /// which then gets its own error.
    static func needs(_ arguments: CommandArguments, database: String) -> [(WireAction, String?)]? {
        let command = arguments.command
        switch arguments.name {
        case let name where open.contains(name): return []
        case "find", "getMore", "killCursors", "count", "distinct": return [(.read, database)]
        case "explain":
            guard case .document(let explained)? = command["explain"] else { return [(.read, database)] }
            return needs(CommandArguments(explained), database: database) ?? [(.read, database)]
        case "aggregate": return aggregate(command["pipeline"]?.arrayValue ?? [], database: database)
        case "listIndexes", "listCollections", "dbStats": return [(.metadata, database)]
        case "insert", "update", "delete", "findAndModify", "findandmodify": return [(.write, database)]
        case "create", "collMod", "drop", "dropDatabase", "createIndexes", "dropIndexes", "deleteIndexes":
            return [(.catalog, database)]
        case "renameCollection":
            let databases = ["renameCollection", "to"].compactMap { key in
                command[key]?.stringValue?.split(separator: ".", maxSplits: 1).first.map(String.init)
            }
            return databases.map { (.catalog, $0) }
        case "serverStatus", "hostInfo", "getCmdLineOpts", "getLog": return [(.server, nil)]
        default: return nil
        }
    }

    /// An aggregate reads its database (every database, for a cluster-wide change stream) and writes where its
    /// `$out` or `$merge` writes.
    private static func aggregate(_ stages: [BSON], database: String) -> [(WireAction, String?)] {
        if let first = stages.first?.documentValue?["$changeStream"]?.documentValue,
            first["allChangesForCluster"]?.boolValue == true
        {
            return [(.read, nil)]
        }
        var needs: [(WireAction, String?)] = [(.read, database)]
        guard let last = stages.last?.documentValue, let name = last.keys.first, name == "$out" || name == "$merge"
        else { return needs }
        var target = database
        if case .document(let specification) = last.values[0] {
            let into = name == "$merge" ? specification["into"] : .document(specification)
            if let namespace = into?.documentValue, let named = namespace["db"]?.stringValue { target = named }
        }
        needs.append((.write, target))
        return needs
    }
}
