import BSON
import DocumentStore
import Foundation

/// Runs an app's triggers against a store: database triggers on the change log, scheduled triggers on
/// their cron schedules, authentication triggers on the events the auth layer fires. Each event reaches
/// the handler at least once: a database trigger's resume token (in `local.triggerState`) moves only after
/// the function finished, so a restart, even after `kill -9`, redelivers what was in flight (and what
/// finished since the token was last written: at most every 20 ms while events keep finishing). All
/// database triggers share one read of the change log (`ChangeFeed`).
///
/// - Ordered database triggers run one event at a time in commit order and are suspended when an event
///   fails its last retry; unordered ones run up to `maxConcurrency` events at once, dead-letter an event
///   that fails its last retry, and save a token just before their oldest unfinished event.
/// - Pre-images (`fullDocumentBeforeChange`) exist only for collections created with
///   `changeStreamPreAndPostImages`. A collection-scoped trigger that wants them creates its collection
///   so; a collection that already existed keeps its options, and if it was created without them its
///   events carry `fullDocumentBeforeChange: null` (recreate it, or create it before first use).
/// - Scheduled triggers save their last fire time after the function finished and catch up missed
///   fire times on start. Authentication events are delivered from memory only (see `fire(authEvent:)`).
/// - Functions run inline in their trigger's task (no task per event); `stop()` never cancels a running
///   one but lets it finish, so a function that never returns holds it up: functions are expected to
///   enforce their own timeout (`SwitchyardApp` does).
///
/// ```swift
/// let runtime = TriggerRuntime(store: store, definitions: app.triggers) { invocation in
///     try await functions.run(invocation)
/// }
/// try await runtime.start()
/// ```
package actor TriggerRuntime {
    package nonisolated let store: DocumentStore
    package nonisolated let configuration: TriggerRuntimeConfiguration
    let handler: TriggerHandler
    /// Runs a trigger's `onSuspend` function.
    let suspensionAlert: TriggerSuspensionAlert?
    let ledger: TriggerLedger
    private(set) var definitions: [TriggerDefinition]
    var progress: [String: TriggerProgress] = [:]
    var runners: [String: TriggerTask] = [:]
    /// The change log read once for all database triggers, by whether they ask for pre-images.
    var feeds: [Bool: ChangeFeed] = [:]
    var authenticationDeliveries: [ObjectId: TriggerTask] = [:]
    /// Each user's newest authentication event still being delivered (by user id): the deliveries of that user's
    /// next event wait for these, so triggers see a user's events in the order they happened.
    var latestAuthenticationEvents: [String: AuthenticationEventDeliveries] = [:]
    /// Whether `start()` ran and `stop()` did not since.
    package private(set) var isRunning = false
    /// The lease of each database and scheduled trigger (`TriggerRuntime+Leases`), and the task that hears it change.
    var leases: [String: StoreLease] = [:]
    var leaseWatchers: [String: Task<Void, Never>] = [:]
    /// Where database triggers without a token start (`start(newTriggersAfter:)`), also when a trigger's lease is
    /// acquired later.
    var startLogEnd: Int64 = 0

    package init(
        store: DocumentStore, definitions: [TriggerDefinition], configuration: TriggerRuntimeConfiguration = .init(),
        suspensionAlert: TriggerSuspensionAlert? = nil, handler: @escaping TriggerHandler
    ) {
        self.store = store
        self.configuration = configuration
        self.suspensionAlert = suspensionAlert
        self.handler = handler
        self.definitions = definitions
        ledger = TriggerLedger(store: store, database: configuration.stateDatabase)
    }

    /// Starts every enabled trigger from its saved state: database triggers resume after their token
    /// (catching up on the events written while stopped) unless they skip catch-up events; triggers
    /// suspended before stay suspended. A database trigger without a token starts after `logEnd` (a change log
    /// position read earlier, so that the writes made since reach it), by default the log's end now.
    package func start(newTriggersAfter logEnd: Int64? = nil) async throws {
        guard !isRunning else { return }
        try Self.validate(definitions)
        let saved = try await ledger.loadStates()
        let now = try await store.watch().startingPoint.sequence
        let logEnd = min(logEnd ?? now, now)
        for definition in definitions { progress[definition.name] = makeProgress(definition, saved: saved) }
        for definition in definitions where !definition.disabled {
            if case .database(let trigger) = definition.kind, let item = progress[definition.name] {
                await DatabaseTriggerRunner.enablePreImages(for: trigger, store: store, progress: item)
            }
        }
        isRunning = true
        startLogEnd = logEnd
        for definition in definitions { launch(definition, logEnd: logEnd) }
    }

    /// Stops consuming events. Functions already running finish (no retry is started); their events are
    /// finished or, if not, redelivered after the next start. Saved state is written before returning.
    package func stop() async {
        guard isRunning else { return }
        isRunning = false
        let tasks = Array(runners.values) + Array(authenticationDeliveries.values)
        runners = [:]
        for task in tasks { task.requestStop() }
        for task in tasks { await task.value }
        feeds = [:]
        for item in progress.values {
            if [.starting, .running, .standby].contains(item.snapshot.runState) { item.setRunState(.stopped) }
            await item.flush()
            item.stopRetryingSaves()
        }
        // Last, once the state is saved: another node takes the triggers over from there.
        releaseLeases()
    }

    /// Returns when every running trigger has caught up with the change log as it was when called, no
    /// function is running, no scheduled fire time or retry up to the clock's now is pending, and saved state is
    /// written. A delivery waiting out a retry's backoff that ends after the clock's now does not hold it up, so a
    /// test clock can be moved over it. Suspended, disabled and stopped triggers do not hold it up.
    package func awaitIdle() async throws {
        guard isRunning else { return }
        var logEnd = try await store.watch().startingPoint.sequence
        while true {
            while !allIdle(logEnd: logEnd, now: configuration.clock.now()) {
                try await Task.sleep(for: .milliseconds(2))
            }
            // A delivery's function may have written what another trigger watches (the example app's queue entry)
            // before that trigger read it: idle only once no write came after the log end every trigger passed.
            let end = try await store.watch().startingPoint.sequence
            if end == logEnd { break }
            logEnd = end
        }
        for item in progress.values {
            item.savePosition()
            await item.flush()
        }
    }

    private func allIdle(logEnd: Int64, now: Date) -> Bool {
        definitions.allSatisfy { definition in
            guard let snapshot = progress[definition.name]?.snapshot else { return true }
            // Every delivery waits for a retry that is not due yet, and a waiting event for one of them (a
            // `byDocumentKey` event behind its document's retried one, or one the reader holds until a slot
            // frees); one waiting with no delivery at all is about to start.
            let deliveries = snapshot.inFlight - snapshot.waiting
            guard deliveries == snapshot.backoffs.count, snapshot.backoffs.allSatisfy({ $0 > now }),
                snapshot.waiting == 0 || deliveries > 0
            else {
                return false
            }
            switch snapshot.runState {
            case .starting: return false
            case .suspended, .disabled, .stopped, .standby: return true
            case .running:
                switch definition.kind {
                case .database:
                    // A trigger whose every in-flight event waits for a retry goes on only once the clock moves
                    // (an ordered one reads no further meanwhile, not even the writes its function made).
                    return (snapshot.watermark?.scanned ?? .min) >= logEnd || deliveries > 0
                case .scheduled:
                    return snapshot.sleepingUntil.map { $0 > now } ?? !snapshot.backoffs.isEmpty
                case .authentication: return true
                }
            }
        }
    }

    /// How many waits on the clock the running triggers are in (scheduled fire times and retries' backoffs), so
    /// that a test clock can tell when every one of them has reached it.
    package func clockWaits() -> Int {
        progress.values.reduce(0) { count, item in
            let snapshot = item.snapshot
            return count + snapshot.backoffs.count + (snapshot.sleepingUntil == nil ? 0 : 1)
        }
    }

    // MARK: Launching

    func makeProgress(_ definition: TriggerDefinition, saved: [String: TriggerState]) -> TriggerProgress {
        // The definition in effect when the trigger suspends says whom to tell (a reload may change it).
        let name = definition.name
        var alert: (@Sendable (TriggerSuspension) async -> Void)?
        if suspensionAlert != nil {
            alert = { @Sendable [weak self] suspension in
                guard let self else { return }
                await self.alert(name, of: suspension)
            }
        }
        if let state = saved[definition.name], state.identity == definition.identity {
            return TriggerProgress(
                state: state, ledger: ledger, storageRetry: configuration.storageRetry, clock: configuration.clock,
                logger: configuration.log, alert: alert)
        }
        let item = TriggerProgress(
            state: TriggerState(name: definition.name, identity: definition.identity), ledger: ledger,
            storageRetry: configuration.storageRetry, clock: configuration.clock, logger: configuration.log,
            alert: alert)
        // State under another identity (renamed source) is replaced, so it is not picked up again later.
        if saved[definition.name] != nil { item.save() }
        return item
    }

    /// Starts a trigger's runner. A database trigger without a token (or skipping catch-up events) starts
    /// from `logEnd`, fixed here rather than when its stream opens: a write made after `start()` returned
    /// always reaches it. A scheduled trigger without a last fire time (or skipping catch-up) starts from now.
    /// A suspended trigger stays suspended, but a database or scheduled trigger suspended by a storage failure is
    /// launched to wait it out (its runner goes on once storage works).
    func launch(_ definition: TriggerDefinition, logEnd: Int64) {
        guard isRunning, let item = progress[definition.name] else { return }
        if definition.disabled {
            item.setRunState(.disabled)
            return
        }
        // Another node's: this one waits for the lease, and takes the trigger over from its saved state.
        guard holdsLease(of: definition, for: item) else {
            item.setRunState(.standby)
            return
        }
        if let suspension = item.state.suspension {
            item.setRunState(.suspended)
            guard suspension.resumesWhenStorageReturns else { return }
        }
        let clock = configuration.clock
        let stop = TriggerStop()
        let delivery = TriggerDelivery(
            handler: handler, retry: retryPolicy(of: definition), stop: stop, clock: clock, progress: item)
        switch definition.kind {
        case .database(let trigger):
            if item.state.position == nil || trigger.skipCatchupEvents { item.update { $0.position = logEnd } }
            if item.state.suspension == nil { item.setRunState(.starting) }
            let preImages = trigger.fullDocumentBeforeChange
            let feed = feeds[preImages] ?? ChangeFeed(store: store, preImages: preImages, after: logEnd)
            feeds[preImages] = feed
            let runner = DatabaseTriggerRunner(
                definition: definition, trigger: trigger, store: store, feed: feed, progress: item,
                delivery: delivery, ledger: ledger, clock: clock)
            runners[definition.name] = TriggerTask(task: Task { await runner.run() }, stop: stop)
        case .scheduled(let trigger):
            // Recorded at once, so a crash before the first fire still catches that fire up at the next start.
            if item.state.lastFireTime == nil || trigger.skipCatchupEvents {
                let now = clock.now()
                item.update { $0.lastFireTime = now }
            }
            if item.state.suspension == nil { item.setRunState(.starting) }
            let runner = ScheduledTriggerRunner(
                definition: definition, trigger: trigger, progress: item, delivery: delivery, ledger: ledger,
                clock: clock)
            runners[definition.name] = TriggerTask(task: Task { await runner.run() }, stop: stop)
        case .authentication:
            item.setRunState(.running)
        }
    }

    /// Tells trigger `name`'s `onSuspend` function or webhook, if it has one.
    private func alert(_ name: String, of suspension: TriggerSuspension) async {
        guard let suspensionAlert, let definition = definitions.first(where: { $0.name == name }),
            definition.onSuspend != nil || definition.suspensionWebhook != nil
        else { return }
        await suspensionAlert(definition, suspension)
    }

    /// Stops a trigger's runner and waits for its in-flight functions.
    func halt(_ name: String) async {
        guard let task = runners.removeValue(forKey: name) else { return }
        task.requestStop()
        await task.value
    }

    func retryPolicy(of definition: TriggerDefinition) -> RetryPolicy {
        if case .database(let trigger) = definition.kind { return trigger.retry }
        return configuration.retry
    }

    func definition(named name: String) throws -> TriggerDefinition {
        guard let definition = definitions.first(where: { $0.name == name }) else {
            throw TriggerRuntimeError.unknownTrigger(name)
        }
        return definition
    }

    func replaceDefinitions(_ new: [TriggerDefinition]) {
        definitions = new
    }

    static func validate(_ definitions: [TriggerDefinition]) throws {
        var seen = Set<String>()
        for definition in definitions where !seen.insert(definition.name).inserted {
            throw TriggerRuntimeError(
                code: .duplicateTrigger, message: "two triggers are named '\(definition.name)'; names must be unique")
        }
    }
}
