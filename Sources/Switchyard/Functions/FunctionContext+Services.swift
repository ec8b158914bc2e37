import DocumentStore
import Messaging

extension FunctionContext {
    /// The services a function reaches through its context.
    public struct Services: Sendable {
        let store: DocumentStore
        /// The names `mongodb(_:)` answers to.
        let mongodbServiceNames: Set<String>
        /// Push notifications: FCM, or in development the outbox (`switchyard outbox` shows what was sent).
        public let messaging: any PushMessaging
        /// Outbound HTTP requests.
        public let http: HTTPService
        /// What the database's reads and writes are held to; nil for the system.
        var access: (any DocumentAccess)?

        init(
            store: DocumentStore, mongodbServiceNames: Set<String>, messaging: any PushMessaging, http: HTTPService
        ) {
            self.store = store
            self.mongodbServiceNames = mongodbServiceNames
            self.messaging = messaging
            self.http = http
        }

        /// These services with their database held to `access`.
        func governed(by access: any DocumentAccess) -> Services {
            var services = self
            services.access = access
            return services
        }

        /// The database service, by its App Services name (`mongodb-atlas` unless the app names another).
        public func mongodb(_ serviceName: String = MongoDBService.defaultName) throws(ServiceNotFound)
            -> MongoDBService
        {
            guard mongodbServiceNames.contains(serviceName) else {
                throw ServiceNotFound(name: serviceName, known: mongodbServiceNames.sorted())
            }
            return MongoDBService(name: serviceName, store: store, access: access)
        }
    }
}

/// The app's database, as `context.services.mongodb()` gives it.
public struct MongoDBService: Sendable {
    public static let defaultName = "mongodb-atlas"

    public let name: String
    let store: DocumentStore
    /// The data access rules the function's user is held to; nil when it runs as the system.
    let access: (any DocumentAccess)?

    /// A database of the app's store; `.collection(name)` gives the collection with the MongoDB CRUD,
    /// aggregation and watch API.
    public func db(_ name: String) -> Database {
        store.database(name, access: access)
    }
}

/// `context.services.mongodb(name)` named a service the app does not have.
public struct ServiceNotFound: Error, Sendable, Equatable, CustomStringConvertible {
    public var name: String
    public var known: [String]

    public var description: String {
        "no MongoDB service named '\(name)'\(ClosestMatch.hint(for: name, among: known)) (this app has \(known.map { "'\($0)'" }.joined(separator: ", ")))"
    }
}
