import BSON
import Foundation

/// A multi-statement transaction: every read and write made inside `run` goes to one engine transaction on the
/// store's thread, which it holds from its start to its commit or abort. Reads inside see its own writes; readers
/// outside (the read connections) see only what is committed, and other writes wait for it to end: one writer at a
/// time, so its reads are a snapshot nothing else writes into. Its change events are published at its commit, each
/// carrying `eventFields` (a MongoDB driver session's `lsid` and `txnNumber`).
///
/// A transaction alive longer than its lifetime limit is aborted on the store's thread, so that a client that
/// never commits holds the writer no longer than that.
///
/// ```swift
/// let transaction = try await store.startTransaction(lifetime: .seconds(60))
/// try await transaction.run { try await books.insertOne(["title": "Dune"]) }
/// try await transaction.commit()
/// ```
package final class StoreTransaction: @unchecked Sendable {
    // Unchecked: `jobs`, `request`, `state` and `namespaces` are only touched with `condition` locked.

    package enum State: Sendable, Equatable {
        case waiting, open, committed, aborted
        /// Aborted by the store for outliving its lifetime limit.
        case expired
    }

    /// What the store's thread does next for this transaction.
    enum Step {
        case job((StoreCore) -> Void)
        case commit
        case abort
    }

    /// The transaction a task's store calls go to (see `run`).
    @TaskLocal static var current: StoreTransaction?

    let worker: StoreWorker
    let writeVersions: CollectionWriteVersions
    let eventFields: BSONDocument
    let lifetime: Duration
    private let condition = NSCondition()
    private var jobs: [(StoreCore) -> Void] = []
    private var request: (commit: Bool, done: (StoreError?) -> Void)?
    private var deadline = Date.distantFuture
    private var state = State.waiting
    private var started: ((StoreError?) -> Void)?
    /// Written collections, whose write versions move again once the outcome is known (readers outside may
    /// have cached what they read before it).
    private var namespaces: Set<Namespace> = []

    init(worker: StoreWorker, writeVersions: CollectionWriteVersions, eventFields: BSONDocument, lifetime: Duration) {
        self.worker = worker
        self.writeVersions = writeVersions
        self.eventFields = eventFields
        self.lifetime = lifetime
    }

    package var currentState: State { condition.withLock { state } }

    /// Runs `body` with every store call it makes (on this transaction's store) inside the transaction.
    @discardableResult
    package func run<T>(_ body: () async throws -> T) async rethrows -> T {
        try await Self.$current.withValue(self) { try await body() }
    }

    package func commit() async throws(StoreError) {
        try await finish(commit: true)
    }

    /// Rolls back every write; nothing it wrote is seen outside. Aborting an ended transaction does nothing.
    package func abort() async {
        try? await finish(commit: false)
    }

    private func finish(commit: Bool) async throws(StoreError) {
        let error: StoreError? = await withUnsafeContinuation { continuation in
            condition.lock()
            defer { condition.unlock() }
            switch state {
            case .open where request == nil:
                request = (commit, { continuation.resume(returning: $0) })
                condition.signal()
            case .committed where commit: continuation.resume(returning: nil)
            case .aborted where !commit, .expired where !commit: continuation.resume(returning: nil)
            default: continuation.resume(returning: endedError)
            }
        }
        if let error { throw error }
    }

    /// Called with `condition` locked.
    private var endedError: StoreError {
        switch state {
        case .committed: StoreError(code: 256, message: "the transaction has been committed")
        case .expired:
            StoreError(
                code: 251,
                message: "the transaction has been aborted: it outlived its lifetime limit of \(lifetime)")
        default: StoreError(code: 251, message: "the transaction has been aborted")
        }
    }

    /// Runs `body` on the store's thread inside the transaction, failing when the transaction has ended.
    func perform<T: Sendable>(_ body: @escaping @Sendable (StoreCore) throws(StoreError) -> T) async throws(StoreError)
        -> T
    {
        let result: Result<T, StoreError> = await withUnsafeContinuation { continuation in
            condition.lock()
            defer { condition.unlock() }
            guard state == .open, request == nil else {
                continuation.resume(returning: .failure(endedError))
                return
            }
            jobs.append { core in continuation.resume(returning: Result { () throws(StoreError) in try body(core) }) }
            condition.signal()
        }
        return try result.get()
    }

    func wrote(_ namespace: Namespace) {
        condition.withLock { _ = namespaces.insert(namespace) }
    }

    // MARK: The store's thread

    /// Waits (the caller) until the store's thread has begun the transaction.
    func awaitStart(enqueue: () -> Bool) async throws(StoreError) {
        let error: StoreError? = await withUnsafeContinuation { continuation in
            condition.withLock { started = { continuation.resume(returning: $0) } }
            if !enqueue() { begun(StoreWorker.closedError) }
        }
        if let error { throw error }
    }

    /// The store's thread began the engine transaction (or could not).
    func begun(_ error: StoreError?) {
        condition.lock()
        state = error == nil ? .open : .aborted
        let (seconds, attoseconds) = lifetime.components
        deadline = Date(timeIntervalSinceNow: Double(seconds) + Double(attoseconds) / 1e18)
        let started = self.started
        self.started = nil
        condition.unlock()
        started?(error)
    }

    /// The next job, or the end: jobs are queued only while no end is requested, so none is left behind. Blocks the store's thread until there is one or the lifetime limit passes.
    func nextStep() -> Step {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if !jobs.isEmpty { return .job(jobs.removeFirst()) }
            if let request { return request.commit ? .commit : .abort }
            if Date() >= deadline {
                state = .expired
                return .abort
            }
            _ = condition.wait(until: deadline)
        }
    }

    /// The store's thread ended the transaction: committed when `commit` and no error.
    func ended(committed: Bool, error: StoreError?) {
        condition.lock()
        if state == .open { state = committed && error == nil ? .committed : .aborted }
        let done = request?.done
        request = nil
        let written = namespaces
        condition.unlock()
        for namespace in written { writeVersions.advance(namespace) }
        done?(error)
    }

    /// Ends the transaction from outside (the store is closing).
    func requestAbort() {
        condition.lock()
        if request == nil { request = (false, { _ in }) }
        condition.signal()
        condition.unlock()
    }
}
