import BSON
import Synchronization

/// What a function gets besides its arguments or event: the app's values, the environment, the user it runs
/// as, services (the database, push messaging, HTTP), other functions, and a log.
///
/// ```swift
/// func updateFCMUserToken(_ arguments: [BSON], _ context: FunctionContext) async throws -> BSON {
///     let users = try context.services.mongodb().db("app").collection("users")
///     context.log("updating the token of \(context.user.id)")
///     …
/// }
/// ```
public struct FunctionContext: Sendable {
    /// The app's values for the current environment; values linked to secrets give the secret's value.
    public var values: Values { storage.functions.loaded.values }
    public var environment: Environment { storage.functions.loaded.environment }
    /// The calling user, or the system user for triggers and functions that run as system.
    public var user: FunctionUser { storage.functions.user }
    /// Whether the function runs with full access rather than as the calling user.
    public var runningAsSystem: Bool { storage.functions.runningAsSystem }
    /// The services; unless the function runs as the system, its database reads and writes are held to the app's
    /// data access rules and schemas as the user's requests are.
    public var services: Services {
        let functions = storage.functions
        guard !functions.runningAsSystem, functions.user.kind != .system else { return functions.runtime.services }
        return functions.runtime.services.governed(by: storage.userDataAccess())
    }
    /// The HTTPS request that runs the function, when an endpoint runs it (App Services' `context.request`).
    public var request: EndpointRequest? { storage.exchange?.request }
    /// The answer to that request, which the function may shape (the `response` of App Services' endpoint
    /// functions).
    public var response: EndpointResponse? { storage.exchange?.response }
    /// Other functions of the app, run in this invocation.
    public var functions: Functions { storage.functions }
    var lines: InvocationLogLines { storage.functions.lines }

    /// Every field in one box: a context travels through several closures and calls per execution, and a copy of
    /// a box costs one reference count where a copy of the fields cost one per reference they hold. Values,
    /// environment and services are read through the runtime and configuration it holds, not copied in, so
    /// making a context costs no more than its function needs.
    private let storage: Storage

    private final class Storage: Sendable {
        let functions: Functions
        let exchange: EndpointExchange?
        /// The user's data access, made when the function first reaches its services and kept for the run, so
        /// each collection's role is decided once per run rather than once per `services` read.
        private let dataAccess = Mutex<UserDataAccess?>(nil)

        init(functions: Functions, exchange: EndpointExchange?) {
            self.functions = functions
            self.exchange = exchange
        }

        func userDataAccess() -> UserDataAccess {
            dataAccess.withLock { kept in
                if let kept { return kept }
                let made = functions.loaded.dataAccess(for: functions.user)
                kept = made
                return made
            }
        }
    }

    /// How deep `functions.execute` may nest before it fails (a function calling itself without end).
    public static let maximumCallDepth = 32

    init(
        runtime: FunctionRuntime, loaded: FunctionRuntime.Loaded, user: FunctionUser, runningAsSystem: Bool,
        depth: Int, lines: InvocationLogLines, exchange: EndpointExchange? = nil
    ) {
        storage = Storage(
            functions: Functions(
                runtime: runtime, loaded: loaded, user: user, runningAsSystem: runningAsSystem, depth: depth,
                lines: lines),
            exchange: exchange)
    }

    /// Appends a line to this invocation's log. A run keeps at most 512 lines or 64 KB; after that one
    /// "… N more lines dropped" line ends its log. Secret values are replaced by `<secret>`.
    public func log(_ message: String) {
        lines.append(message)
    }
}

extension FunctionContext {
    /// The app's values by name (`values.json`, overridden by `environments/<environment>.json`).
    public struct Values: Sendable, CustomStringConvertible {
        let values: AppValues

        /// The value, or the secret's value for a value linked to a secret; nil when no value has that name.
        /// Secret values are for using, never for logging: logs and errors are scrubbed of them.
        public func get(_ name: String) -> BSON? {
            switch values[name] {
            case .plain(let value): value
            case .secret(let secret): .string(secret.exposedValue)
            case nil: nil
            }
        }

        /// The names of all values, in declaration order.
        public var names: [String] { values.names }

        /// Shows secret values as `<secret>`.
        public var description: String { values.description }
    }

    /// The environment the app runs in.
    public struct Environment: Sendable {
        /// `development`, `testing`, `qa` or `production`.
        public let tag: String
        /// The values in effect in this environment (`environments/<tag>.json` applied over `values.json`).
        public let values: Values
    }
}
