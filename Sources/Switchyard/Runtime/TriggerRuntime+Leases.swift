import DocumentStore

/// Trigger ownership on a database several nodes share: each database and scheduled trigger runs only on the node
/// holding its lease (`trigger:<name>`, a `StoreLease`). The others wait (their store instance tries for the lease
/// every 200 ms); the one that acquires it reloads the trigger's saved state and goes on from its resume token, so
/// only the events in flight at the previous holder are delivered again. A node that loses the lease starts no
/// further attempt and saves nothing more (`TriggerProgress.isOwned`), then stops the trigger's runner. On a store
/// no other instance opens (SQLite, memory) every lease is held from the start: triggers run as they always did.
/// Authentication triggers take no lease: they run on the node where the event happens.
extension TriggerRuntime {
    static func leaseName(of trigger: String) -> String { "trigger:\(trigger)" }

    /// Whether this node holds `definition`'s lease (asking for it the first time); `item` then runs under the
    /// lease's current tenure, and on a shared database records this node as the holder.
    func holdsLease(of definition: TriggerDefinition, for item: TriggerProgress) -> Bool {
        if case .authentication = definition.kind { return true }
        let lease = leases[definition.name] ?? takeLease(of: definition.name)
        item.own(lease)
        guard lease.tenure != nil else { return false }
        if store.sharesLeases, let node = configuration.node, item.state.node != node {
            item.update { $0.node = node }
        }
        return true
    }

    /// Asks the store for trigger `name`'s lease, with a task that hears it change. The task only needs to know
    /// that something changed (`leaseChanged` reads where the lease is now), so one pending notice is enough.
    private func takeLease(of name: String) -> StoreLease {
        let (changes, notice) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let lease = store.lease(Self.leaseName(of: name)) { _ in notice.yield() }
        leases[name] = lease
        leaseWatchers[name] = Task { [weak self] in
            for await _ in changes { await self?.leaseChanged(name) }
        }
        return lease
    }

    /// The lease of trigger `name` was acquired or lost: a runner under an ended tenure is stopped, and when the
    /// lease is held again the trigger goes on from the state the previous holder saved.
    func leaseChanged(_ name: String) async {
        guard isRunning, let lease = leases[name], let item = progress[name] else { return }
        if item.isOwned, item.snapshot.runState != .standby { return }
        await halt(name)
        guard isRunning, leases[name] === lease, lease.tenure != nil else {
            if progress[name] === item, item.snapshot.runState != .disabled { item.setRunState(.standby) }
            return
        }
        guard let saved = await savedStates(whileHolding: lease),
            let definition = definitions.first(where: { $0.name == name }), isRunning
        else { return }
        let taken = makeProgress(definition, saved: saved)
        progress[name] = taken
        // A trigger that skips catch-up events skips them when its node starts, not when it changes hands.
        launch(definition, logEnd: taken.state.position ?? startLogEnd)
    }

    /// Every trigger's saved state, read again until the store answers; nil once the lease is lost meanwhile.
    private func savedStates(whileHolding lease: StoreLease) async -> [String: TriggerState]? {
        while lease.tenure != nil {
            if let saved = try? await ledger.loadStates() { return saved }
            do { try await Task.sleep(for: .milliseconds(200)) } catch { return nil }
        }
        return nil
    }

    /// Gives trigger `name`'s lease up (it was removed).
    func releaseLease(of name: String) {
        leases.removeValue(forKey: name)?.release()
        leaseWatchers.removeValue(forKey: name)?.cancel()
    }

    /// Gives every lease up (the runtime stopped): other nodes take the triggers over.
    func releaseLeases() {
        for name in Array(leases.keys) { releaseLease(of: name) }
    }
}
