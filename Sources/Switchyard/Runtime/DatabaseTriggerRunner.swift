import BSON
import DocumentStore
import Foundation

/// Consumes the change log for one database trigger until cancelled, suspended, or the store closes. A suspension
/// for a storage failure (a full disk) is waited out: the runner tries to write the trigger's state with backoff,
/// and once that works it goes on, delivering again the event that failed (an ordered trigger from its saved
/// position; an unordered one delivers again each event that failed, while the functions already running go on
/// and no new event starts).
struct DatabaseTriggerRunner: Sendable {
    let definition: TriggerDefinition
    let trigger: DatabaseTrigger
    let store: DocumentStore
    /// The runtime's shared read of the change log, for this trigger's pre-image option.
    let feed: ChangeFeed
    let progress: TriggerProgress
    let delivery: TriggerDelivery
    let ledger: TriggerLedger
    let clock: any TriggerClock

    /// The trigger was suspended because the store's storage failed: the runner waits for storage to work.
    private struct StorageSuspended: Error {}

    /// A change event the trigger cannot route (its `project` broke the event): the trigger is suspended.
    private struct RouteFailure: Error {
        var event: ChangeEvent
        var error: StoreError
    }

    func run() async {
        defer { if progress.snapshot.runState != .suspended { progress.setRunState(.stopped) } }
        let route: ChangeEventRoute
        do {
            route = try ChangeEventRoute(trigger)
        } catch {
            progress.suspend(
                TriggerSuspension(
                    reason: "the trigger's match or project is not valid: \(error.message)", code: error.code,
                    time: clock.now()))
            return
        }
        var storageWaits = StorageWaits()
        // Suspended by a storage failure before a restart: waited out like one met now.
        if progress.state.suspension?.resumesWhenStorageReturns == true {
            guard await waitForStorage(&storageWaits) else { return }
        }
        // Set by the runtime before launching; nil only after a tolerated resume error: from now.
        var resumeAfter = progress.state.position
        while !Task.isCancelled {
            do {
                let cursor = try await ChangeFeed.Cursor.open(feed, after: resumeAfter)
                progress.startConsuming(at: cursor.position)
                switch trigger.delivery {
                case .ordered: try await consumeInOrder(cursor, route: route)
                case .unordered(let maxConcurrency):
                    try await consumeConcurrently(cursor, route: route, maxConcurrency: max(1, maxConcurrency))
                case .byDocumentKey(let maxConcurrency):
                    try await consumeByDocumentKey(cursor, route: route, maxConcurrency: max(1, maxConcurrency))
                }
                progress.savePosition()
                return
            } catch let error as StoreError where error.code == .changeStreamHistoryLost {
                guard trigger.tolerateResumeErrors else {
                    progress.suspend(TriggerSuspension(reason: error.message, code: error.code, time: clock.now()))
                    return
                }
                // From the log's end now, which the gap records; from wherever the stream starts if unreadable.
                let end = try? await store.watch().startingPoint.sequence
                let gap = resumeAfter.flatMap { lost in
                    end.map { TriggerResumeGap(after: lost, through: max(lost, $0), time: clock.now()) }
                }
                let from = resumeAfter.map { ResumeToken(sequence: $0).description } ?? "the saved token"
                progress.resumedAfterLostHistory(
                    gap,
                    warning: "\(UTCTimestamp.text(clock.now())): could not resume after \(from) "
                        + "(ChangeStreamHistoryLost); restarted from now, "
                        + (gap.map { "events in between were not delivered: \($0.description)" }
                            ?? "events in between were not delivered"))
                resumeAfter = end
            } catch let failure as RouteFailure {
                progress.suspend(
                    TriggerSuspension(
                        reason: failure.error.message, code: failure.error.code, failedEventId: failure.event.id.data,
                        time: clock.now()))
                return
            } catch is StorageSuspended {
                guard await waitForStorage(&storageWaits) else { return }
                resumeAfter = progress.state.position
            } catch let error where StoreError.storageFailure(causing: error) != nil {
                let failure = StoreError.storageFailure(causing: error)
                progress.suspend(
                    TriggerSuspension(
                        reason: "the change log could not be read: \(failure.map(String.init(describing:)) ?? "")",
                        code: failure?.code, time: clock.now()))
                guard await waitForStorage(&storageWaits) else { return }
                resumeAfter = progress.state.position
            } catch {
                // The store closed under the trigger: it simply stops; a restart resumes from the saved token.
                if !Task.isCancelled { progress.warn("\(clock.now()): the change stream ended: \(error)") }
                return
            }
        }
    }

    /// Tries in a row of a storage that kept failing, to lengthen the backoff while events keep failing.
    private struct StorageWaits {
        var tries = 0
        /// The trigger's processed count when it last went on: when more were processed since, tries start over.
        var processedAtResume = 0
    }

    /// Waits, with backoff, until the trigger's state (with its suspension) can be written, then lifts the
    /// suspension; false when the trigger was stopped meanwhile.
    private func waitForStorage(_ waits: inout StorageWaits) async -> Bool {
        if progress.state.processed > waits.processedAtResume { waits.tries = 0 }
        guard await progress.waitUntilStorageWorks(tries: &waits.tries) else { return false }
        waits.processedAtResume = progress.state.processed
        progress.resumeAfterStorageFailure()
        return true
    }

    /// One event at a time, in commit order; a failure after the last retry suspends the trigger.
    private func consumeInOrder(_ cursor: ChangeFeed.Cursor, route: ChangeEventRoute) async throws {
        var cursor = cursor
        while let entry = try await cursor.next() {
            guard let routed = try await deliverable(entry, route: route) else {
                progress.skip(entry.sequence)
                continue
            }
            progress.begin(entry.sequence)
            switch await deliver(routed, eventId: entry.eventId) {
            case .delivered:
                progress.finish(entry, at: clock.now(), deadLettered: false)
            case .failed(let error, let attempts):
                progress.abandon()
                if let failure = StoreError.storageFailure(causing: error) {
                    progress.suspend(
                        TriggerSuspension(
                            reason: "\(definition.handlerPhrase) failed \(attempts) times: \(failure)",
                            code: failure.code, failedEventId: entry.eventId, time: clock.now()))
                    throw StorageSuspended()
                }
                progress.suspend(
                    TriggerSuspension(
                        reason: "\(definition.handlerPhrase) failed \(attempts) times: \(error)",
                        code: (error as? StoreError)?.code, failedEventId: entry.eventId, time: clock.now()))
                return
            case .interrupted:
                progress.abandon()
                return
            }
        }
    }

    /// Up to `maxConcurrency` events at once; a failure after the last retry goes to the dead-letter queue. While
    /// the trigger waits for storage, no new event starts: the functions running go on, and the next event starts
    /// once every one of them has finished.
    private func consumeConcurrently(_ cursor: ChangeFeed.Cursor, route: ChangeEventRoute, maxConcurrency: Int)
        async throws
    {
        var cursor = cursor
        try await withThrowingTaskGroup(of: Void.self) { group in
            // Children added and not yet collected: finished ones are collected only when a slot is needed.
            var uncollected = 0
            while let entry = try await cursor.next() {
                guard let routed = try await deliverable(entry, route: route) else {
                    progress.skip(entry.sequence)
                    continue
                }
                if progress.isWaitingForStorage {
                    try await group.waitForAll()
                    uncollected = 0
                    if Task.isCancelled { return }
                }
                if uncollected >= maxConcurrency {
                    _ = try await group.next()
                    uncollected -= 1
                }
                progress.begin(entry.sequence)
                group.addTask { await deliverUnordered(routed, of: entry) }
                uncollected += 1
            }
        }
    }

    /// `event` is what the route made of `entry`'s event. A failure of the store's storage (the function's, or the
    /// dead-letter queue's) suspends the trigger for storage, and the event is delivered again once storage works.
    /// Returns whether the event finished (delivered or dead-lettered); false when the runtime is stopping.
    /// `beforeFinishing` runs once the event is done, just before it counts as finished.
    @discardableResult
    func deliverUnordered(
        _ event: ChangeEvent, of entry: ChangeFeed.Entry, beforeFinishing: () -> Void = {}
    ) async -> Bool {
        let eventId = entry.eventId
        var storageTries = 0
        while true {
            let failure: (reason: String, error: StoreError)
            switch await deliver(event, eventId: eventId) {
            case .delivered:
                beforeFinishing()
                progress.finish(entry, at: clock.now(), deadLettered: false)
                return true
            case .failed(let error, let attempts):
                if let storage = StoreError.storageFailure(causing: error) {
                    failure = ("\(definition.handlerPhrase) failed \(attempts) times: \(storage)", storage)
                    break
                }
                let letter = DeadLetter(
                    trigger: definition.name, eventId: eventId, input: .database(event), error: "\(error)",
                    attempts: attempts, failedAt: clock.now())
                do {
                    try await ledger.add(letter)
                    beforeFinishing()
                    progress.finish(entry, at: clock.now(), deadLettered: true)
                    return true
                } catch {
                    guard let storage = StoreError.storageFailure(causing: error) else {
                        // The store closed: not recorded, so not finished; a restart delivers it again.
                        progress.abandon()
                        progress.warn("\(clock.now()): could not dead-letter event \(eventId): \(error)")
                        return false
                    }
                    failure = ("event \(eventId) could not be dead-lettered: \(storage)", storage)
                }
            case .interrupted:
                progress.abandon()
                return false
            }
            progress.suspend(
                TriggerSuspension(
                    reason: failure.reason, code: failure.error.code, failedEventId: eventId, time: clock.now()))
            guard await progress.waitUntilStorageWorks(tries: &storageTries) else {
                progress.abandon()
                return false
            }
            progress.continueAfterStorageFailure()
        }
    }

    private func deliver(_ event: consuming ChangeEvent, eventId: String) async -> DeliveryOutcome {
        await delivery.deliver(
            TriggerInvocation(trigger: definition, input: .database(event), eventId: eventId, attempt: 1)
        ) { _ in progress.recordFailedAttempt() }
    }

    /// `entry`'s event as the trigger's function receives it; nil when the trigger does not take it.
    func deliverable(_ entry: ChangeFeed.Entry, route: ChangeEventRoute) async throws -> ChangeEvent? {
        // Most events go as they are: copied once, here, into what the function receives.
        guard route.watches(entry.event) else { return nil }
        if route.deliversUnchanged(entry.event) { return entry.event }
        return try await transformed(entry.event, route: route)
    }

    /// The event after the route's lookup, `match` and `project`.
    private func transformed(_ event: ChangeEvent, route: ChangeEventRoute) async throws -> ChangeEvent? {
        var current: BSONDocument?
        if route.needsLookup(event), let namespace = event.namespace, let id = event.documentKey?["_id"] {
            current = try await store.database(namespace.database).collection(namespace.collection).findOne([
                "_id": ["$eq": id]
            ])
        }
        do {
            return try route.deliverable(event, currentDocument: current)
        } catch {
            throw RouteFailure(event: event, error: error)
        }
    }

    /// Pre-images need `changeStreamPreAndPostImages` on the collection, which only `createCollection`
    /// can set in this store: a collection created earlier keeps its options, and its events carry
    /// `fullDocumentBeforeChange: null` (the trigger warns). Database- and deployment-wide triggers cannot
    /// enable it for collections they do not know of.
    /// The runtime awaits this for every trigger before `start()` returns, so that a write made right after
    /// `start()` cannot create the collection without pre-images first.
    static func enablePreImages(for trigger: DatabaseTrigger, store: DocumentStore, progress: TriggerProgress) async {
        guard trigger.fullDocumentBeforeChange else { return }
        guard case .collection(let database, let collection) = trigger.scope else {
            progress.warn(
                "pre-images are delivered only for collections created with changeStreamPreAndPostImages; "
                    + "a \(trigger.scope.database == nil ? "deployment" : "database")-wide trigger cannot enable them")
            return
        }
        do {
            try await store.database(database).createCollection(
                collection, options: CreateCollectionOptions(changeStreamPreAndPostImages: true))
        } catch let error as StoreError where error.code == .namespaceExists {
            return  // exists already: see above
        } catch {
            progress.warn("could not create \(database).\(collection) with pre-images enabled: \(error)")
        }
    }
}
