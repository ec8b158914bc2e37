import BSON

/// A trigger on the change stream of a collection, a database, or the whole deployment.
package struct DatabaseTrigger: Sendable, Equatable {
    package var scope: WatchScope
    package var operations: Set<DatabaseOperation>
    /// Deliver the document as it is after an update (`fullDocument` in the change event).
    package var fullDocument: Bool
    /// Deliver the document as it was before the change (`fullDocumentBeforeChange`).
    package var fullDocumentBeforeChange: Bool
    /// A `$match` filter on change events; empty matches everything.
    package var match: BSONDocument
    /// A `$project` applied to change events; empty keeps them whole.
    package var project: BSONDocument
    package var delivery: DeliveryOrder
    /// Skip events that happened while the trigger was disabled or the runtime was down.
    package var skipCatchupEvents: Bool
    /// Start from the current position when the saved resume token no longer resumes.
    package var tolerateResumeErrors: Bool
    package var retry: RetryPolicy

    package init(
        scope: WatchScope, operations: Set<DatabaseOperation>, fullDocument: Bool = false,
        fullDocumentBeforeChange: Bool = false, match: BSONDocument = [:], project: BSONDocument = [:],
        delivery: DeliveryOrder = .ordered, skipCatchupEvents: Bool = false, tolerateResumeErrors: Bool = false,
        retry: RetryPolicy = RetryPolicy()
    ) {
        self.scope = scope
        self.operations = operations
        self.fullDocument = fullDocument
        self.fullDocumentBeforeChange = fullDocumentBeforeChange
        self.match = match
        self.project = project
        self.delivery = delivery
        self.skipCatchupEvents = skipCatchupEvents
        self.tolerateResumeErrors = tolerateResumeErrors
        self.retry = retry
    }
}

/// What a database trigger watches. In `triggers.yaml`, `database` is required (as in App Services);
/// `database: "*"` watches every database, and leaving out `collection` watches the whole database.
package enum WatchScope: Sendable, Hashable {
    case deployment
    case database(String)
    case collection(database: String, collection: String)

    package var database: String? {
        switch self {
        case .deployment: nil
        case .database(let name), .collection(let name, _): name
        }
    }

    package var collection: String? {
        if case .collection(_, let name) = self { return name }
        return nil
    }
}

/// The change-stream operation types a database trigger can fire on: Atlas's names for the document
/// operations and for the DDL ones (`operation_types` in an App Services export).
package enum DatabaseOperation: String, Sendable, Hashable, CaseIterable, Comparable {
    case insert = "INSERT"
    case update = "UPDATE"
    case replace = "REPLACE"
    case delete = "DELETE"
    case createCollection = "CREATE_COLLECTION"
    case modifyCollection = "MODIFY_COLLECTION"
    case renameCollection = "RENAME_COLLECTION"
    case shardCollection = "SHARD_COLLECTION"
    case dropCollection = "DROP_COLLECTION"
    case reshardCollection = "RESHARD_COLLECTION"
    case refineCollectionShardKey = "REFINE_COLLECTION_SHARD_KEY"
    case createIndexes = "CREATE_INDEXES"
    case dropIndexes = "DROP_INDEXES"
    case dropDatabase = "DROP_DATABASE"

    /// The document operations, which a trigger of any scope may watch.
    package static let documentOperations: [Self] = [.insert, .update, .replace, .delete]

    /// The sharding operations: accepted so that an imported app's trigger keeps them, but Switchyard's
    /// store has no sharding, so they never fire.
    package var isSharding: Bool {
        [.shardCollection, .reshardCollection, .refineCollectionShardKey].contains(self)
    }

    /// Whether a trigger watching `scope` may fire on this operation, as Atlas allows: the document
    /// operations anywhere, the collection DDL operations on database and deployment triggers, and
    /// `DROP_DATABASE` on deployment triggers only.
    package func isAllowed(in scope: WatchScope) -> Bool {
        switch (self, scope) {
        case (.insert, _), (.update, _), (.replace, _), (.delete, _): true
        case (.dropDatabase, .deployment): true
        case (.dropDatabase, _): false
        case (_, .collection): false
        default: true
        }
    }

    /// Where the operation may be used, for the error that refuses it elsewhere.
    package var allowedPlacement: String {
        self == .dropDatabase
            ? "deployment triggers (ones that watch every database)"
            : "database and deployment triggers (ones that name no collection)"
    }

    /// The order `CaseIterable` lists them in, so written files are stable.
    package static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// Whether events reach the function one at a time in order, several at once, or one at a time per document.
package enum DeliveryOrder: Sendable, Hashable {
    /// One event at a time, in change-stream order (App Services' default).
    case ordered
    /// Up to `maxConcurrency` events at once, in no particular order.
    case unordered(maxConcurrency: Int)
    /// The events of one document (its namespace and `documentKey`) one at a time in commit order, different
    /// documents' events in parallel, up to `maxConcurrency` documents at once (`ordered: byDocumentKey`).
    case byDocumentKey(maxConcurrency: Int)

    /// Used when `ordered: false` or `ordered: byDocumentKey` does not say `maxConcurrency`.
    package static let defaultMaxConcurrency = 10
    /// The `ordered:` value that asks for per-document order.
    package static let byDocumentKeyName = "byDocumentKey"
    /// How many events App Services runs at once for an unordered trigger without maximum throughput; an
    /// imported unordered trigger gets it, since an export names no limit of its own.
    package static let appServicesMaxConcurrency = 10_000
    package static let maxConcurrencyRange = 1...appServicesMaxConcurrency

    /// How many events may run at once (1 for ordered delivery).
    package var maxConcurrency: Int {
        switch self {
        case .ordered: 1
        case .unordered(let limit), .byDocumentKey(let limit): limit
        }
    }

    /// The mode's name as the CLI, the admin API and the dashboard show it: `ordered`, `unordered` or
    /// `byDocumentKey`.
    package var name: String {
        switch self {
        case .ordered: "ordered"
        case .unordered: "unordered"
        case .byDocumentKey: Self.byDocumentKeyName
        }
    }
}
