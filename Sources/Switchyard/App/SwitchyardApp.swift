import BSON
import DocumentStore
import Messaging
import Synchronization

/// One app, assembled: its configuration, its functions, its store, the services functions use, the invocation
/// log and the outbox. `start()` starts the trigger dispatcher (`triggers`), which reaches functions through
/// `triggerHandler`; clients reach them through `call`.
///
/// ```swift
/// let app = try await SwitchyardApp.open(directory: "app", registry: functionRegistry)
/// try await app.start()
/// let result = try await app.call(function: "ping", arguments: ["hello"], user: user)
/// await app.stop()
/// ```
package final class SwitchyardApp: Sendable {
    /// The configuration in effect (`reload(_:)` replaces it).
    package var configuration: AppConfiguration { current.withLock { $0 } }
    let current: Mutex<AppConfiguration>
    package let registry: FunctionRegistry
    package let store: DocumentStore
    /// Every function execution; see `InvocationLog`.
    package let invocations: InvocationLog
    /// What the development outbox recorded; see `OutboxLog` (and `outbox(limit:)`).
    package let outboxLog: OutboxLog
    /// What `context.services.messaging` sends through: the transport given in `Options.messaging`, else the
    /// development outbox, which `switchyard serve` replaces by an `FCMClient` speaking to its own FCM emulator
    /// endpoint while it serves (`routeMessaging(to:)`).
    package let messaging: MessagingRoute
    /// The transport the app was opened with, which `routeMessaging(to: nil)` restores.
    private let openedTransport: any PushMessaging
    /// The development outbox when the app was opened without a transport of its own (for fault injection in
    /// tests; it also records what the served FCM emulator accepts); nil otherwise.
    package let outboxMessaging: OutboxMessaging?
    /// The development outbox, whatever `messaging` is: what the FCM emulator endpoint of `switchyard serve`
    /// sends through, with its topic subscriptions (kept in `local.topicSubscriptions`), the platforms devices
    /// registered with (kept in `local.devices`) and fault injection (from `messaging.emulator` in
    /// `triggers.yaml`). The same object as `outboxMessaging` when that is set.
    package let pushOutbox: OutboxMessaging
    /// The trigger dispatcher: status, suspend/resume, dead letters, authentication events.
    package let triggers: TriggerRuntime
    let runtime: FunctionRuntime
    /// Custom user data as last read (see `customUserData(forUser:)`).
    let customUserDataCache: CustomUserDataCache

    /// The directory `Options.Storage.configurationDirectory` keeps the store in, under the configuration's.
    package static let dataDirectory = ".switchyard"

    private init(
        configuration: AppConfiguration, registry: FunctionRegistry, store: DocumentStore, invocations: InvocationLog,
        outboxLog: OutboxLog, messaging: MessagingRoute, outboxMessaging: OutboxMessaging?,
        pushOutbox: OutboxMessaging,
        runtime: FunctionRuntime, triggers: TriggerRuntime
    ) {
        current = Mutex(configuration)
        self.registry = registry
        self.store = store
        self.invocations = invocations
        self.outboxLog = outboxLog
        self.messaging = messaging
        self.openedTransport = messaging.transport
        self.outboxMessaging = outboxMessaging
        self.pushOutbox = pushOutbox
        self.runtime = runtime
        self.triggers = triggers
        customUserDataCache = CustomUserDataCache(store: store)
    }

    /// Loads the configuration in `directory` for `environment`, checks it against `registry` (every trigger's
    /// function exists and has the trigger's kind), and opens the store.
    /// - Throws: `ConfigurationErrors` listing every configuration problem; the store's or HTTP client's error
    ///   when they cannot start.
    package static func open(
        directory: String, environment: AppEnvironment = .development, registry: FunctionRegistry,
        options: Options = Options()
    ) async throws -> SwitchyardApp {
        let configuration = try AppConfiguration.load(
            directory: directory, environment: environment, registeredFunctions: registry.names,
            variables: options.variables)
        let trimmed = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        let base = trimmed.isEmpty ? "." : trimmed
        let file = base == "." ? AppConfiguration.triggersFile : "\(base)/\(AppConfiguration.triggersFile)"
        let problems = registry.check(configuration.definition, file: file)
        guard problems.isEmpty else { throw ConfigurationErrors(problems) }
        let store: StoreConfiguration =
            switch options.storage {
            case .configurationDirectory: configuration.store(dataDirectory: "\(base)/\(dataDirectory)")
            case .directory(let path): configuration.store(dataDirectory: path)
            case .memory: .memory
            }
        return try await open(configuration: configuration, registry: registry, store: store, options: options)
    }

    /// Assembles an app from a configuration already loaded (`options.storage` and `options.variables` are
    /// not used: `store` says where the data lives).
    package static func open(
        configuration: AppConfiguration, registry: FunctionRegistry, store storeConfiguration: StoreConfiguration,
        options: Options = Options()
    ) async throws -> SwitchyardApp {
        let problems = registry.check(configuration.definition)
        guard problems.isEmpty else { throw ConfigurationErrors(problems) }
        let store = try await DocumentStore.open(storeConfiguration)
        do {
            try await store.makeIndexes(configuration.definition.indexes)
            let invocations = InvocationLog(store: store, retention: options.invocationRetention)
            let outboxLog = OutboxLog(store: store, retention: options.outboxRetention)
            try await invocations.prepare()
            try await outboxLog.prepare()
            let subscriptions = TopicSubscriptionCollection(store: store)
            let topics = TopicSubscriptions(
                try await subscriptions.load(), sink: { change in try await subscriptions.save(change) })
            let deviceCollection = DeviceCollection(store: store)
            let devices = DeviceRegistry(
                try await deviceCollection.load(), sink: { change in try await deviceCollection.save(change) })
            let emulator = configuration.definition.messaging.emulator
            let pushOutbox = OutboxMessaging(
                project: emulator.project ?? configuration.definition.appId ?? "switchyard-local", topics: topics,
                devices: devices, faults: emulator.faults, sink: { entry in try await outboxLog.record(entry) })
            let messaging: any PushMessaging
            let outboxMessaging: OutboxMessaging?
            if let given = options.messaging {
                messaging = given
                outboxMessaging = nil
            } else {
                messaging = pushOutbox
                outboxMessaging = pushOutbox
            }
            let route = MessagingRoute(messaging)
            let services = FunctionContext.Services(
                store: store, mongodbServiceNames: options.mongodbServiceNames, messaging: route,
                http: HTTPService(client: try HTTPClient()))
            let runtime = FunctionRuntime(
                registry: registry, configuration: configuration, services: services, invocationLog: invocations,
                coverage: options.coverage)
            let triggers = TriggerRuntime(
                store: store, definitions: configuration.definition.triggers, configuration: options.triggers,
                suspensionAlert: { trigger, suspension in
                    await runtime.runSuspensionAlert(trigger: trigger, suspension: suspension)
                }, handler: { invocation in try await runtime.runTrigger(invocation) })
            return SwitchyardApp(
                configuration: configuration, registry: registry, store: store, invocations: invocations,
                outboxLog: outboxLog, messaging: route, outboxMessaging: outboxMessaging, pushOutbox: pushOutbox,
                runtime: runtime, triggers: triggers)
        } catch {
            await store.close()
            throw error
        }
    }

    /// Points `context.services.messaging` at `transport` (nil: back to what the app was opened with). Sends
    /// already under way finish on the transport they started with.
    package func routeMessaging(to transport: (any PushMessaging)?) {
        messaging.transport = transport ?? openedTransport
    }

    /// The newest `limit` messages the outbox recorded (in this run or earlier ones), oldest first.
    package func outbox(limit: Int = 100) async throws -> [OutboxEntry] {
        try await outboxLog.entries(limit: limit)
    }

    /// Runs one trigger attempt: the trigger's function as the system user, within its time limit, recorded
    /// in `invocations`. Throws `FunctionCallError` when the attempt failed or timed out, and the `StoreError` when the
    /// store's storage failed under the function (a full disk).
    package var triggerHandler: TriggerHandler {
        let runtime = self.runtime
        return { invocation in try await runtime.runTrigger(invocation) }
    }

    /// Starts the trigger dispatcher: each enabled trigger catches up from its saved resume token, then follows
    /// new changes. Client calls work without it. A database trigger without a token starts after `logEnd`
    /// (`changeLogEnd()` read before the app took writes), by default the change log's end now.
    package func start(newTriggersAfter logEnd: Int64? = nil) async throws {
        try await triggers.start(newTriggersAfter: logEnd)
    }

    /// The change log's end now: where `start(newTriggersAfter:)` starts the triggers without a token when the app
    /// takes writes before it starts them (`switchyard serve` serves first, so that triggers catching up send
    /// through its FCM emulator).
    package func changeLogEnd() async throws -> Int64 {
        try await store.watch().startingPoint.sequence
    }

    /// Waits until every trigger has caught up with the change log and no function is running.
    package func awaitIdle() async throws {
        try await triggers.awaitIdle()
    }

    /// The log forwarders: their status, and `flush()` to wait until what they hold is delivered.
    package var logForwarding: LogForwarding { runtime.forwarding }

    /// Stops the dispatcher (running functions finish first), delivers what the log forwarders hold, ends log and
    /// outbox followers and closes the store.
    package func stop() async {
        await triggers.stop()
        await runtime.forwarding.finish()
        await invocations.flush()
        invocations.finish()
        outboxLog.finish()
        await store.close()
    }
}
