/// A built-in MongoDB role a wire user holds: on one database (`readWrite@product`), or on every database for the
/// `…AnyDatabase` roles and `root` (held on `admin`, as MongoDB grants them).
package struct WireRole: Sendable, Hashable, CustomStringConvertible {
    package enum Name: String, Sendable, CaseIterable {
        case read, readWrite, dbAdmin, dbOwner, readAnyDatabase, readWriteAnyDatabase, dbAdminAnyDatabase, root

        /// Held on every database rather than the one it names.
        var isForEveryDatabase: Bool {
            switch self {
            case .readAnyDatabase, .readWriteAnyDatabase, .dbAdminAnyDatabase, .root: true
            case .read, .readWrite, .dbAdmin, .dbOwner: false
            }
        }

        /// What the role lets its holder do where it holds.
        var actions: Set<WireAction> {
            switch self {
            case .read, .readAnyDatabase: [.read, .metadata]
            case .readWrite, .readWriteAnyDatabase: [.read, .metadata, .write]
            case .dbAdmin, .dbAdminAnyDatabase: [.metadata, .catalog]
            case .dbOwner: [.read, .metadata, .write, .catalog]
            case .root: Set(WireAction.allCases)
            }
        }
    }

    package var name: Name
    package var database: String

    /// What users get who were added without roles: everything, as before roles existed.
    package static let root = WireRole(name: .root, database: WireUsers.database)

    package init(name: Name, database: String) {
        self.name = name
        self.database = database
    }

    /// `readWrite@product`, `read@reporting`, `readAnyDatabase`, `root`; nil for anything else.
    package init?(_ text: String) {
        let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let name = Name(rawValue: parts[0]) else { return nil }
        if name.isForEveryDatabase {
            guard parts.count == 1 || parts[1] == WireUsers.database else { return nil }
            self.init(name: name, database: WireUsers.database)
        } else {
            guard parts.count == 2, !parts[1].isEmpty else { return nil }
            self.init(name: name, database: parts[1])
        }
    }

    package var description: String { name.isForEveryDatabase ? name.rawValue : "\(name.rawValue)@\(database)" }

    /// Whether the role allows `action` on `database` (nil: on every database, as a cluster-wide change stream
    /// reads).
    func allows(_ action: WireAction, on database: String?) -> Bool {
        guard name.actions.contains(action) else { return false }
        return name.isForEveryDatabase || database == self.database
    }
}

/// What a command does, as roles grant it.
enum WireAction: Sendable, CaseIterable {
    /// Reads documents: find, aggregate, count, distinct, getMore, change streams.
    case read
    /// Reads the catalog: listCollections, listIndexes, dbStats.
    case metadata
    /// Writes documents: insert, update, delete, findAndModify, `$out` and `$merge`.
    case write
    /// Changes the catalog: create, drop, collMod, the index commands, renameCollection, dropDatabase.
    case catalog
    /// Looks at the server: serverStatus, hostInfo, getCmdLineOpts, getLog.
    case server
}
