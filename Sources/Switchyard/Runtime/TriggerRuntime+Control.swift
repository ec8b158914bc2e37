import BSON
import DocumentStore
import Foundation

/// What the CLI and the admin API call: statuses, suspend and resume, dead letters, configuration changes.
extension TriggerRuntime {
    /// Every defined trigger, in definition order. Before `start()` it shows the saved state.
    package func statuses() async throws -> [TriggerStatus] {
        let logEnd = try? await store.watch().startingPoint.sequence
        // A trigger another node runs shows what that node saved.
        let standby = progress.values.contains { $0.snapshot.runState == .standby }
        let saved = progress.isEmpty || standby ? try await ledger.loadStates() : [:]
        var statuses: [TriggerStatus] = []
        for definition in definitions {
            let snapshot = progress[definition.name]?.snapshot
            var state = snapshot?.state ?? TriggerState(name: definition.name, identity: definition.identity)
            if snapshot == nil || snapshot?.runState == .standby, let stored = saved[definition.name],
                stored.identity == definition.identity
            {
                state = stored
            }
            let runState: TriggerStatus.State =
                switch snapshot?.runState {
                case .standby: .standby
                case .starting, .running: .running
                case .suspended: .suspended
                case .disabled: .disabled
                case .stopped, nil: definition.disabled ? .disabled : state.suspension != nil ? .suspended : .stopped
                }
            var pending: Int?
            var lagSeconds: Double?
            let now = configuration.clock.now()
            // A running trigger counts from what it has read and finished: the saved position lags behind by
            // up to `skippedPositionSaveInterval` of entries it skipped, and more after its last skip.
            if case .database(let trigger) = definition.kind, let logEnd,
                let position = snapshot?.watermark?.position ?? state.position
            {
                // The log's own count when it cannot be read (closed under the status, pruned past the token).
                let found = try? await self.pending(of: trigger, after: position, through: logEnd)
                pending = found?.count ?? Int(clamping: max(0, logEnd - position))
                lagSeconds = found.map { found in found.oldest.map { max(0, now.timeIntervalSince($0)) } ?? 0 }
            }
            var ordering: DeliveryOrder?
            if case .database(let trigger) = definition.kind { ordering = trigger.delivery }
            statuses.append(
                TriggerStatus(
                    name: definition.name, type: definition.kind.typeName, function: definition.handlerName,
                    state: runState, ordering: ordering, lastEventId: state.lastEventId,
                    lastEventTime: state.lastEventTime, lastProcessedAt: state.lastProcessedAt,
                    lastClusterTime: state.lastClusterTime,
                    heartbeat: snapshot.flatMap { Self.heartbeat($0, kind: definition.kind, logEnd: logEnd, now: now) },
                    lagSeconds: lagSeconds, resumeGap: state.resumeGap, pendingLogEntries: pending,
                    processed: state.processed,
                    failedAttempts: state.failedAttempts, deadLettered: state.deadLettered,
                    inFlight: snapshot?.inFlight ?? 0, suspension: state.suspension,
                    isInMemoryOnly: progress[definition.name]?.isInMemoryOnly ?? false, warnings: state.warnings,
                    node: state.node))
        }
        return statuses
    }

    /// A running trigger with nothing to do (caught up with the log, waiting for its fire time, or waiting for
    /// authentication events) beats now: it waits, working; one at work beats when it last read, began or
    /// finished an event, so a function that hangs shows as a heartbeat falling behind.
    static func heartbeat(_ snapshot: TriggerProgress.Snapshot, kind: TriggerDefinition.Kind, logEnd: Int64?, now: Date)
        -> Date?
    {
        guard snapshot.runState == .running else { return nil }
        switch kind {
        case .database:
            if snapshot.inFlight == 0, let logEnd, (snapshot.watermark?.scanned ?? .min) >= logEnd { return now }
        case .scheduled:
            if snapshot.sleepingUntil != nil { return now }
        case .authentication:
            return now
        }
        return snapshot.heartbeat
    }

    package func status(of trigger: String) async throws -> TriggerStatus {
        _ = try definition(named: trigger)
        guard let status = try await statuses().first(where: { $0.name == trigger }) else {
            throw TriggerRuntimeError.unknownTrigger(trigger)
        }
        return status
    }

    /// Stops a running trigger until `resume`: its running function finishes, its token stays where it
    /// is, and the suspension survives restarts.
    package func suspend(trigger name: String) async throws {
        let definition = try definition(named: name)
        guard isRunning, let item = progress[name] else {
            throw TriggerRuntimeError(code: .notRunning, message: "the trigger runtime is not running")
        }
        guard !definition.disabled else {
            throw TriggerRuntimeError(code: .invalidState, message: "trigger '\(name)' is disabled")
        }
        try await refuseOnStandby(item, name, "suspend")
        await halt(name)
        item.suspend(
            TriggerSuspension(reason: "suspended by request", time: configuration.clock.now()), replacing: true)
        await item.flush()
    }

    /// Resumes a suspended trigger from its saved token (`true`: the failed event is delivered again) or
    /// from now (`false`: everything since the suspension is skipped), as App Services offers it.
    package func resume(trigger name: String, fromToken: Bool) async throws {
        try await resume(trigger: name, from: fromToken ? .savedToken : .now)
    }

    package func resume(trigger name: String, from point: TriggerResumePoint) async throws {
        let definition = try definition(named: name)
        guard isRunning, let item = progress[name] else {
            throw TriggerRuntimeError(code: .notRunning, message: "the trigger runtime is not running")
        }
        try await refuseOnStandby(item, name, "resume")
        guard item.snapshot.runState == .suspended else {
            throw TriggerRuntimeError(code: .invalidState, message: "trigger '\(name)' is not suspended")
        }
        // A trigger waiting for storage has a runner: it is replaced by one going on at once.
        await halt(name)
        let logEnd = try await store.watch().startingPoint.sequence
        let now = configuration.clock.now()
        item.update { state in Self.move(&state, to: point, kind: definition.kind, logEnd: logEnd, now: now) }
        await item.flush()
        launch(definition, logEnd: logEnd)
    }

    /// A node that does not hold `name`'s lease leaves its suspension to the holder: what it saved the holder's next
    /// save would overwrite, and the holder would go on running meanwhile. The refusal names the holder (as it
    /// saved itself) so the operator can ask that node.
    private func refuseOnStandby(_ item: TriggerProgress, _ name: String, _ action: String) async throws {
        guard item.snapshot.runState == .standby else { return }
        let holder = try? await ledger.loadStates()[name]?.node
        throw TriggerRuntimeError(
            code: .heldByAnotherNode,
            message: "trigger '\(name)' runs on \(holder.flatMap { $0 }.map { "node \($0)" } ?? "another node"):"
                + " \(action) it there")
    }

    /// Replaces the trigger set while running (or before `start`). Unchanged triggers keep running; a
    /// changed one restarts from its saved token when its identity (name and source) is the same, and from
    /// now when not; removed triggers stop and their saved state is deleted.
    package func apply(definitions new: [TriggerDefinition]) async throws {
        try Self.validate(new)
        let old = Dictionary(definitions.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let names = Set(new.map(\.name))
        for name in old.keys where !names.contains(name) {
            await halt(name)
            releaseLease(of: name)
            if let item = progress.removeValue(forKey: name) { await item.flush() }
            try await ledger.deleteState(of: name)
        }
        replaceDefinitions(new)
        guard isRunning else { return }
        let saved = try await ledger.loadStates()
        let logEnd = try await store.watch().startingPoint.sequence
        for definition in new {
            if let previous = old[definition.name] {
                if previous == definition { continue }
                await halt(definition.name)
                if let item = progress[definition.name] { await item.flush() }
                if previous.identity != definition.identity {
                    progress[definition.name] = makeProgress(definition, saved: [:])
                    progress[definition.name]?.save()
                }
            } else {
                progress[definition.name] = makeProgress(definition, saved: saved)
            }
            launch(definition, logEnd: logEnd)
        }
    }

    // MARK: Dead letters

    /// Events given up on, oldest first; all triggers' when `trigger` is nil.
    package func deadLetters(trigger: String? = nil) async throws -> [DeadLetter] {
        try await ledger.deadLetters(trigger: trigger)
    }

    /// Delivers a dead letter's event again, with the trigger's retries; on success it leaves the queue,
    /// on failure it stays with its attempts and error updated (and this throws `redeliveryFailed`).
    package func redeliver(deadLetterId id: ObjectId) async throws {
        guard var letter = try await ledger.deadLetter(id) else {
            throw TriggerRuntimeError(code: .deadLetterNotFound, message: "no dead letter with id \(id.hex)")
        }
        let definition = try definition(named: letter.trigger)
        let item = progress[definition.name]
        let delivery = TriggerDelivery(handler: handler, retry: retryPolicy(of: definition))
        let outcome = await delivery.deliver(
            TriggerInvocation(
                trigger: definition, input: letter.input, eventId: letter.eventId, attempt: letter.attempts + 1)
        ) { _ in item?.recordFailedAttempt() }
        switch outcome {
        case .delivered:
            try await ledger.removeDeadLetter(id)
            let now = configuration.clock.now()
            item?.update {
                $0.processed += 1
                $0.lastProcessedAt = now
            }
        case .failed(let error, let attempts):
            letter.error = "\(error)"
            letter.attempts = attempts
            letter.failedAt = configuration.clock.now()
            try await ledger.add(letter)
            throw TriggerRuntimeError(
                code: .redeliveryFailed,
                message:
                    "redelivering \(letter.eventId) to trigger '\(letter.trigger)' failed \(attempts) times: \(error)"
            )
        case .interrupted:
            throw CancellationError()
        }
    }
}
