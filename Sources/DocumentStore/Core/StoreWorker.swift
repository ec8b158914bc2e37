import Foundation
import Synchronization

/// The store's own thread: every write, and every read that cannot run on its caller's thread, runs
/// here, never on the cooperative pool.
///
/// Writes are group-committed: writers enqueue their operation and suspend; the thread takes every
/// queued write (up to `maximumBatch`), runs them in one transaction, commits once, and only then
/// resumes the writers — a write is never acknowledged before its transaction (with its change events)
/// is committed. A failing operation undoes only itself: the batch first runs without savepoints (the
/// common case costs nothing extra); when an operation fails, the batch is rolled back and run again
/// with a savepoint per operation. Reads queued here run between batches, outside any transaction, so
/// they only see committed data; with a pool of read connections most reads never come here (`query`).
///
/// A lone writer commits on its own thread instead (`write`): when nothing is queued, the last batch
/// had a single write and the engine's commit never waits on the disk (`inlineCommits`), the writer
/// takes the core and runs the same commit itself, sparing the hop to this thread and back, which
/// costs as much as the commit. Any contention sends writes back through the queue and group commit.
final class StoreWorker: @unchecked Sendable {
    // Unchecked: the queues and flags are only touched with `condition` locked; `core` only with
    // `coreLock` held (it is set on the worker thread before any job runs and cleared there on close);
    // `checkpointer` and `listener` only on the worker thread.
    private let condition = NSCondition()
    /// Held by whoever uses `core`: this thread for a batch or a read, or a writer committing inline.
    private let coreLock = NSLock()
    /// Whether a lone writer may commit on its own thread (see the type's comment).
    private let inlineCommits: Bool
    /// False while writes arrive together (the last batch had more than one); guarded by `condition`.
    private var loneWriter = true
    private var reads: [(StoreCore) -> Void] = []
    private var writes: [any QueuedWrite] = []
    private var closeRequests: [() -> Void] = []
    /// Multi-statement transactions waiting for the writer, and the one holding it (see `StoreTransaction`).
    private var transactions: [StoreTransaction] = []
    private var activeTransaction: StoreTransaction?
    /// A lone writer's commit found the write-ahead log large: the thread checkpoints when it wakes.
    private var checkpointRequested = false
    private var isClosed = false
    private var core: StoreCore?
    /// Checkpoints beside concurrent writers' commits (SQLite); nil: every checkpoint holds the core.
    private var checkpointer: Checkpointer?
    private let maximumBatch: Int
    let notifier = ChangeNotifier()
    /// The store's collections' write versions, which commits heard from other instances advance.
    private let writeVersions: CollectionWriteVersions
    /// The catalog as of the last commit, for reads off this thread.
    let catalog = PublishedCatalog()
    /// Read connections for reads on their caller's thread; nil for the memory engine.
    private let readers: ReadConnectionPool?
    /// Committed group-commit transactions (for tests proving that writes were batched).
    let transactionsCommitted = Atomic<Int>(0)
    /// Hears other instances' commits on a shared database (PostgreSQL); set before any job runs, closed on close.
    private var listener: (any CommitListener)?
    /// The newest catalog version the core has read or made (shared engines), so that a commit heard from another
    /// instance asks this thread to read the catalog only when that commit changed it.
    private let catalogVersionSeen = Atomic<Int64>(0)
    /// How many times a batch that found the catalog stale runs, before its writers get the WriteConflict.
    private static let staleCatalogAttempts = 4

    private init(
        maximumBatch: Int, readers: ReadConnectionPool?, inlineCommits: Bool, writeVersions: CollectionWriteVersions
    ) {
        self.maximumBatch = max(1, maximumBatch)
        self.writeVersions = writeVersions
        self.readers = readers
        self.inlineCommits = inlineCommits
    }

    /// Starts the thread and opens the engine on it. `inlineCommits`: the engine's commit does not wait
    /// for the disk (no fsync), so a lone writer may run it on its own thread.
    static func start(
        maximumBatch: Int, readers: ReadConnectionPool?, inlineCommits: Bool, writeVersions: CollectionWriteVersions,
        open: @escaping @Sendable () throws(StoreError) -> StoreCore
    ) async throws(StoreError) -> StoreWorker {
        let worker = StoreWorker(
            maximumBatch: maximumBatch, readers: readers, inlineCommits: inlineCommits, writeVersions: writeVersions)
        let opened: StoreError? = await withCheckedContinuation { continuation in
            let thread = Thread {
                do {
                    let core = try open()
                    worker.core = core
                    worker.catalog.publish(core.catalog)
                    worker.notifier.start(after: core.lastSequence, prunedThrough: core.prunedThrough)
                    worker.checkpointer = try? core.engine.makeCheckpointer()
                    if let shared = core.shared {
                        worker.catalogVersionSeen.store(core.catalogVersion ?? 0, ordering: .releasing)
                        do {
                            worker.listener = try shared.startCommitListener {
                                [weak worker] sequence, version, wrote in
                                worker?.heard(sequence: sequence, catalogVersion: version, wrote: wrote)
                            }
                        } catch {
                            core.engine.close()
                            throw error
                        }
                    }
                } catch let error as StoreError {
                    continuation.resume(returning: error)
                    return
                } catch {
                    continuation.resume(returning: StoreError.cannotOpenStore("cannot open the store: \(error)"))
                    return
                }
                continuation.resume(returning: nil)
                worker.runLoop()
            }
            thread.name = "DocumentStore"
            thread.stackSize = 8 << 20
            thread.start()
        }
        if let opened { throw opened }
        return worker
    }

    static let closedError = StoreError.location(17_003, "the document store is closed")

    /// Jobs enqueued and not yet taken, readable without the lock for the idle spin.
    private let queued = Atomic<Int>(0)

    /// After a single job, the thread polls briefly before sleeping: a lone caller that awaits one
    /// call and sends the next is usually back within microseconds, and waking a sleeping thread costs
    /// more. After a larger batch it does not: the resumed callers need the CPU more than this thread.
    private func spinUntilWorkArrives() {
        let deadline = ContinuousClock.now.advanced(by: .microseconds(50))
        while queued.load(ordering: .acquiring) == 0 && ContinuousClock.now < deadline {}
    }

    /// Writes queued before an enqueue wakes this thread (guarded by `condition`); above 1 while it
    /// gathers the writers of the last batch.
    private var wakeThreshold = 1

    private func runLoop() {
        guard let core else { return }
        var lastBatchSize = 0
        var lastCommit = Duration.zero
        while true {
            if lastBatchSize == 1 { spinUntilWorkArrives() }
            condition.lock()
            if lastBatchSize > 1 { gatherWriters(lastBatchSize, for: lastCommit) }
            while reads.isEmpty && writes.isEmpty && closeRequests.isEmpty && !checkpointRequested
                && transactions.isEmpty
            {
                condition.wait()
            }
            if closeRequests.isEmpty, !transactions.isEmpty {
                let transaction = transactions.removeFirst()
                activeTransaction = transaction
                condition.unlock()
                coreLock.lock()
                serve(transaction, core: core)
                coreLock.unlock()
                condition.withLock { activeTransaction = nil }
                lastBatchSize = 0
                continue
            }
            checkpointRequested = false
            let batchReads = reads
            reads.removeAll()
            let batchWrites = Array(writes.prefix(maximumBatch))
            writes.removeFirst(batchWrites.count)
            let closing = writes.isEmpty && reads.isEmpty ? closeRequests : []
            if !closing.isEmpty {
                isClosed = true
                closeRequests.removeAll()
            }
            queued.subtract(batchReads.count + batchWrites.count, ordering: .releasing)
            if !batchWrites.isEmpty { loneWriter = batchWrites.count == 1 }
            condition.unlock()

            lastBatchSize = batchReads.count + batchWrites.count
            coreLock.lock()
            for read in batchReads { read(core) }
            if !batchWrites.isEmpty {
                let start = ContinuousClock.now
                commit(batchWrites, core: core)
                lastCommit = ContinuousClock.now - start
            }
            // A large log is copied beside concurrent writers (by the checkpointer's thread), an overlarge one
            // with them waiting, which lets it start over. A lone writer (its batches of one, or its request
            // alone) waits for every checkpoint, as under SQLite's own automatic checkpoint: the copy then
            // catches up with the log, which starts over small, where one beside a writer that commits on
            // never catches up and the log grows to its bound, which costs the writer more than the waits.
            let lone = batchWrites.count <= 1
            var checkpointNeed = core.engine.checkpointNeed
            if checkpointNeed == .blockingWriters || (checkpointNeed == .besideWriters && (checkpointer == nil || lone))
            {
                core.engine.checkpoint()
                checkpointNeed = .none
            }
            if !closing.isEmpty {
                checkpointer?.close()
                checkpointer = nil
                listener?.close()
                listener = nil
                readers?.close()
                notifier.finishAll()
                core.engine.close()
                core.identityFile?.finish(committedThrough: core.lastSequence)
                self.core = nil
                coreLock.unlock()
                for done in closing { done() }
                return
            }
            coreLock.unlock()
            if checkpointNeed == .besideWriters { checkpointer?.checkpoint() }
        }
    }

    /// Group commit: the writers of a batch just resumed usually come back with their next write soon.
    /// Waiting (asleep, so that they get the CPU) until as many writes are queued as the last batch
    /// had, for about as long as its commit took plus ~10 µs per writer to be resumed and come back
    /// (never over 1 ms), lets the next commit carry them all instead of a trickle. Called with
    /// `condition` locked.
    private func gatherWriters(_ count: Int, for lastCommit: Duration) {
        let wait = min(lastCommit / .seconds(1) + Double(count) * 10e-6, 0.001)
        let deadline = Date(timeIntervalSinceNow: wait)
        wakeThreshold = count
        while writes.count < count && reads.isEmpty && closeRequests.isEmpty && condition.wait(until: deadline) {}
        wakeThreshold = 1
    }

    private func commit(_ jobs: [any QueuedWrite], core: StoreCore) {
        var attempt = 1
        while true {
            let saved = core.snapshot
            let generation = core.catalogGeneration
            do {
                try core.engine.beginTransaction()
                if !jobs.allSatisfy({ $0.perform(core, inSavepoint: false) }) {
                    core.engine.rollbackTransaction()
                    core.restore(saved)
                    // A lone failed write has its error and nothing to commit.
                    if jobs.count == 1 && !core.catalogIsStale {
                        jobs[0].complete(nil)
                        return
                    }
                    if !core.catalogIsStale {
                        try core.engine.beginTransaction()
                        for job in jobs { _ = job.perform(core, inSavepoint: true) }
                        if core.catalogIsStale {
                            core.engine.rollbackTransaction()
                            core.restore(saved)
                        }
                    }
                }
            } catch {
                core.restore(saved)
                for job in jobs { job.complete(error) }
                return
            }
            // Another instance changed the catalog under this batch: every write of it ran on the old one (and
            // none is kept), so the whole batch runs again on the catalog as it now is.
            if core.catalogIsStale {
                refreshCatalog(core)
                guard attempt < Self.staleCatalogAttempts else {
                    for job in jobs { job.complete(StoreCore.staleCatalogError) }
                    return
                }
                attempt += 1
                continue
            }
            if let error = commitTransaction(core, restoring: saved, catalogGeneration: generation) {
                for job in jobs { job.complete(error) }
                return
            }
            Self.resume(jobs)
            if core.needsPruning { prune(core) }
            return
        }
    }

    /// Reads the catalog again (another instance changed it) and publishes it for reads off this thread.
    private func refreshCatalog(_ core: StoreCore) {
        catalog.beginChange()
        try? core.loadCatalog()
        catalog.publish(core.catalog)
        catalogVersionSeen.store(core.catalogVersion ?? 0, ordering: .releasing)
    }

    /// Another instance committed through `sequence` (heard on the listener's thread): when it changed the catalog,
    /// this thread reads it before any read queued after; the collections it wrote advance their write versions
    /// (after the catalog is read, when it changed: a read on the old catalog could miss a collection the commit
    /// made, and be kept); the streams waiting on this store read the log.
    private func heard(sequence: Int64, catalogVersion: Int64, wrote: CommittedWrites) {
        if catalogVersion > catalogVersionSeen.load(ordering: .acquiring) {
            _ = enqueue {
                reads.append { [self] core in
                    if (core.catalogVersion ?? 0) < catalogVersion { refreshCatalog(core) }
                    writeVersions.advance(wrote)
                }
            }
        } else {
            writeVersions.advance(wrote)
        }
        notifier.othersCommitted(through: sequence)
    }

    /// Holds the core for a multi-statement transaction: runs its jobs in one engine transaction until it commits,
    /// aborts or outlives its lifetime; every other write, and every read that needs this thread, waits.
    private func serve(_ transaction: StoreTransaction, core: StoreCore) {
        let saved = core.snapshot
        let generation = core.catalogGeneration
        do {
            try core.engine.beginTransaction()
        } catch {
            transaction.begun(error)
            return
        }
        core.transactionFields = transaction.eventFields
        transaction.begun(nil)
        while true {
            switch transaction.nextStep() {
            case .job(let job): job(core)
            case .commit:
                core.transactionFields = nil
                // Statements of it ran on a catalog another instance had changed: none of it may be kept.
                if core.catalogIsStale {
                    core.engine.rollbackTransaction()
                    core.restore(saved)
                    refreshCatalog(core)
                    transaction.ended(committed: true, error: StoreCore.staleCatalogError)
                    return
                }
                let error = commitTransaction(core, restoring: saved, catalogGeneration: generation)
                transaction.ended(committed: true, error: error)
                if error == nil, core.needsPruning { prune(core) }
                return
            case .abort:
                core.transactionFields = nil
                core.engine.rollbackTransaction()
                core.restore(saved)
                if core.catalogIsStale { refreshCatalog(core) }
                transaction.ended(committed: false, error: nil)
                return
            }
        }
    }

    /// Starts a multi-statement transaction once the writer is free (see `StoreTransaction`).
    func startTransaction(_ transaction: StoreTransaction) async throws(StoreError) {
        try await transaction.awaitStart {
            condition.lock()
            defer { condition.unlock() }
            guard !isClosed && closeRequests.isEmpty else { return false }
            transactions.append(transaction)
            condition.signal()
            return true
        }
    }

    /// The transaction the calling task runs in, when it is one of this store's.
    private var callersTransaction: StoreTransaction? {
        guard let transaction = StoreTransaction.current, transaction.worker === self else { return nil }
        return transaction
    }

    /// Commits the open transaction and hands its change-log entries to the streams; on failure, undoes
    /// the transaction's in-memory state back to `saved` and returns the error.
    private func commitTransaction(_ core: StoreCore, restoring saved: StoreCore.Snapshot, catalogGeneration: Int)
        -> StoreError?
    {
        // Readers off this thread must never pair the new data with the old catalog: mark the change
        // before the commit makes the data visible, and publish the new catalog before acknowledging.
        let catalogChanged = core.catalogGeneration != catalogGeneration
        if catalogChanged { catalog.beginChange() }
        do throws(StoreError) {
            do {
                try core.announceWrites()
            } catch {
                core.engine.rollbackTransaction()
                throw error
            }
            try core.engine.commitTransaction()
        } catch {
            core.restore(saved)
            try? core.loadCatalog()
            if catalogChanged { catalog.publish(core.catalog) }
            return error
        }
        if catalogChanged { catalog.publish(core.catalog) }
        if let version = core.catalogVersion { catalogVersionSeen.store(version, ordering: .releasing) }
        transactionsCommitted.add(1, ordering: .relaxed)
        if !core.appendedChanges.isEmpty {
            notifier.publish(core.appendedChanges)
            core.clearAppendedChanges()
            core.identityFile?.committed(through: core.lastSequence)
        }
        return nil
    }

    /// Commits `body` on the caller's thread when it writes alone (see the type's comment); nil when
    /// it must queue. The same transaction as `commit` makes of a batch of one, without the queue's
    /// bookkeeping.
    private func commitInline<T: Sendable>(_ body: @escaping @Sendable (StoreCore) throws(StoreError) -> T)
        -> Result<T, StoreError>?
    {
        condition.lock()
        let alone = loneWriter && writes.isEmpty && reads.isEmpty && closeRequests.isEmpty && !isClosed
        condition.unlock()
        guard alone, coreLock.try() else { return nil }
        defer { coreLock.unlock() }
        guard let core else { return nil }
        // Past the automatic checkpoint's size the writer waits, in the queue, for the store's thread to
        // checkpoint with the core held (a checkpoint fsyncs: not on the caller's thread); see `runLoop`.
        if core.engine.checkpointNeed != .none {
            requestCheckpoint()
            return nil
        }
        let saved = core.snapshot
        let generation = core.catalogGeneration
        let result: Result<T, StoreError>
        do {
            try core.engine.beginTransaction()
        } catch {
            core.restore(saved)
            return .failure(error)
        }
        do {
            result = .success(try body(core))
        } catch {
            core.engine.rollbackTransaction()
            core.restore(saved)
            return .failure(error)
        }
        if let error = commitTransaction(core, restoring: saved, catalogGeneration: generation) {
            return .failure(error)
        }
        if core.needsPruning { prune(core) }
        if core.engine.checkpointNeed != .none { requestCheckpoint() }
        return result
    }

    /// Resumes the writers of a committed batch. Each resume from this thread costs a few microseconds
    /// (it wakes a thread of the cooperative pool); a large batch is handed to one job on the pool
    /// instead, which resumes them there while this thread gathers the next batch.
    private static func resume(_ jobs: [any QueuedWrite]) {
        guard jobs.count >= 8 else {
            for job in jobs { job.complete(nil) }
            return
        }
        let batch = CommittedBatch(jobs)
        Task.detached { batch.resume() }
    }

    private func prune(_ core: StoreCore) {
        let saved = core.snapshot
        let prunedThrough = core.prunedThrough
        do {
            try core.engine.beginTransaction()
            try core.pruneChangeLog()
            try core.engine.commitTransaction()
            notifier.pruned(through: core.prunedThrough)
        } catch {
            core.engine.rollbackTransaction()
            core.restore(saved)
            core.prunedThrough = prunedThrough
        }
    }

    private func requestCheckpoint() {
        condition.lock()
        if !checkpointRequested {
            checkpointRequested = true
            condition.signal()
        }
        condition.unlock()
    }

    private func enqueue(_ body: () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !isClosed && closeRequests.isEmpty else { return false }
        body()
        queued.add(1, ordering: .releasing)
        if writes.count >= wakeThreshold || !reads.isEmpty { condition.signal() }
        return true
    }

    /// Runs a read. With read connections (SQLite), on the caller's thread, in a read transaction of
    /// its own with the catalog of the last commit; otherwise (the memory engine, or while a commit
    /// changes the catalog) on the store's thread between transactions. Either way it sees every write
    /// acknowledged before it started. `deferringTransaction`: see `ReadConnectionPool.read`.
    ///
    /// It stays on its caller's executor (the public calls above it hop to the global one once): a read
    /// that needs no hop costs less than the executor switch an async call would make.
    nonisolated(nonsending) func query<T: Sendable>(
        deferringTransaction: Bool = false, _ body: @escaping @Sendable (StoreView) throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        if let transaction = callersTransaction {
            return try await transaction.perform { core throws(StoreError) in try body(core.view) }
        }
        if let readers,
            let result = try readers.read(catalog: catalog, deferringTransaction: deferringTransaction, body)
        {
            return result
        }
        return try await read { core throws(StoreError) in try body(core.view) }
    }

    /// Runs `body` on the store's thread outside any transaction.
    func read<T: Sendable>(_ body: @escaping @Sendable (StoreCore) throws(StoreError) -> T) async throws(StoreError)
        -> T
    {
        if let transaction = callersTransaction { return try await transaction.perform(body) }
        let result: Result<T, StoreError> = await withUnsafeContinuation { continuation in
            let job: (StoreCore) -> Void = { core in
                continuation.resume(returning: Result { () throws(StoreError) in try body(core) })
            }
            if !enqueue({ reads.append(job) }) { continuation.resume(returning: .failure(Self.closedError)) }
        }
        return try result.get()
    }

    /// Runs `body` in the next group commit; returns once its transaction is committed. The change-log entries it
    /// appends keep the calling task's `StoreWriteOrigin`.
    func write<T: Sendable>(_ body: @escaping @Sendable (StoreCore) throws(StoreError) -> T) async throws(StoreError)
        -> T
    {
        let body = Self.tagging(body, with: StoreWriteOrigin.current)
        if let transaction = callersTransaction {
            // A failing statement undoes only itself; whether the transaction goes on is its owner's choice.
            return try await transaction.perform { core throws(StoreError) in
                try core.withSavepoint { () throws(StoreError) in try body(core) }
            }
        }
        if inlineCommits, let result = commitInline(body) { return try result.get() }
        let result: Result<T, StoreError> = await withUnsafeContinuation { continuation in
            let write = PendingWrite(body: body, continuation: continuation)
            if !enqueue({ writes.append(write) }) { continuation.resume(returning: .failure(Self.closedError)) }
        }
        return try result.get()
    }

    /// `body` with the core's `writeOrigin` set to `origin` while it runs; `body` itself for an untagged write.
    private static func tagging<T: Sendable>(
        _ body: @escaping @Sendable (StoreCore) throws(StoreError) -> T, with origin: String?
    ) -> @Sendable (StoreCore) throws(StoreError) -> T {
        guard let origin else { return body }
        return { core throws(StoreError) in
            core.writeOrigin = origin
            defer { core.writeOrigin = nil }
            return try body(core)
        }
    }

    /// Finishes queued work, closes the engine and stops the thread.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            condition.lock()
            if isClosed {
                condition.unlock()
                continuation.resume()
                return
            }
            closeRequests.append { continuation.resume() }
            // Transactions never started are refused; the one holding the writer is rolled back.
            let refused = transactions
            transactions.removeAll()
            activeTransaction?.requestAbort()
            condition.signal()
            for transaction in refused { transaction.begun(Self.closedError) }
            condition.unlock()
        }
    }
}

/// A write in the queue; once enqueued it is touched only on the store's thread.
private protocol QueuedWrite: AnyObject {
    /// Runs the operation, keeping its result until the commit is known; false when it failed.
    /// Outside a savepoint, the caller undoes a failure by rolling back the transaction.
    func perform(_ core: StoreCore, inSavepoint: Bool) -> Bool
    /// Resumes the writer after the commit: with `error` (the commit's) if there is one, else with the
    /// operation's own result.
    func complete(_ error: StoreError?)
}

/// Writes whose transaction committed, handed from the store's thread to the job that resumes them.
private final class CommittedBatch: @unchecked Sendable {
    // Unchecked: the store's thread hands the writes over and never touches them again; only the
    // resuming job does, once.
    private let jobs: [any QueuedWrite]

    init(_ jobs: [any QueuedWrite]) {
        self.jobs = jobs
    }

    func resume() {
        for job in jobs { job.complete(nil) }
    }
}

/// A queued write and its outcome, which resumes its writer once the commit is known.
private final class PendingWrite<T: Sendable>: QueuedWrite {
    private let body: @Sendable (StoreCore) throws(StoreError) -> T
    private let continuation: UnsafeContinuation<Result<T, StoreError>, Never>
    private var outcome: Result<T, StoreError>?

    init(
        body: @escaping @Sendable (StoreCore) throws(StoreError) -> T,
        continuation: UnsafeContinuation<Result<T, StoreError>, Never>
    ) {
        self.body = body
        self.continuation = continuation
    }

    func perform(_ core: StoreCore, inSavepoint: Bool) -> Bool {
        let outcome = Result { () throws(StoreError) in
            inSavepoint ? try core.withSavepoint { () throws(StoreError) in try body(core) } : try body(core)
        }
        self.outcome = outcome
        if case .success = outcome { return true }
        return false
    }

    func complete(_ error: StoreError?) {
        continuation.resume(returning: error.map { .failure($0) } ?? outcome ?? .failure(StoreWorker.closedError))
    }
}
