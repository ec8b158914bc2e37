import BSON
import DocumentStore
import Synchronization

/// Drivers' multi-statement transactions, by session (`lsid`): each session's latest transaction number and the
/// store transaction it runs in. Bounded: past `capacity` sessions the longest unused whose transaction has ended
/// is forgotten.
final class WireTransactions: Sendable {
    private struct Entry {
        var txnNumber: Int64
        var transaction: StoreTransaction
        var used: UInt64
    }

    private struct State {
        var entries: [BSON: Entry] = [:]
        var clock: UInt64 = 0
    }

    let capacity: Int
    /// How long a transaction may hold the writer (MongoDB's `transactionLifetimeLimitSeconds`).
    let lifetime: Duration
    private let state = Mutex(State())

    init(lifetime: Duration, capacity: Int = 10_000) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    /// Starts the session's transaction `txnNumber` (ending its older one), once the store's writer is free.
    func start(session: BSON, txnNumber: Int64, store: DocumentStore) async throws(StoreError) -> StoreTransaction {
        if let previous = state.withLock({ $0.entries[session] }) {
            guard previous.txnNumber < txnNumber else {
                throw previous.txnNumber > txnNumber
                    ? Self.tooOld(txnNumber, newest: previous.txnNumber)
                    : StoreError(
                        code: 117,
                        message: "Cannot start a transaction with txnNumber \(txnNumber): it has already started")
            }
            await previous.transaction.abort()
        }
        let eventFields: BSONDocument = ["lsid": ["id": session], "txnNumber": .int64(txnNumber)]
        let transaction = try await store.startTransaction(eventFields: eventFields, lifetime: lifetime)
        state.withLock { state in
            state.clock += 1
            state.entries[session] = Entry(txnNumber: txnNumber, transaction: transaction, used: state.clock)
            guard state.entries.count > capacity,
                let oldest = state.entries.filter({ $0.value.transaction.currentState != .open })
                    .min(by: { $0.value.used < $1.value.used })?.key
            else { return }
            state.entries[oldest] = nil
        }
        return transaction
    }

    /// The session's transaction `txnNumber`, open or ended.
    func transaction(session: BSON, txnNumber: Int64) throws(StoreError) -> StoreTransaction {
        let entry = state.withLock { state -> Entry? in
            guard var entry = state.entries[session] else { return nil }
            state.clock += 1
            entry.used = state.clock
            state.entries[session] = entry
            return entry
        }
        guard let entry, entry.txnNumber == txnNumber else {
            if let entry, entry.txnNumber > txnNumber { throw Self.tooOld(txnNumber, newest: entry.txnNumber) }
            throw StoreError(
                code: 251,
                message: "Given transaction number \(txnNumber) does not match any in-progress transactions. "
                    + "The active transaction number is \(entry?.txnNumber ?? -1)")
        }
        return entry.transaction
    }

    /// Aborts the session's open transaction and forgets it (`endSessions`, `killSessions`).
    func end(session: BSON) async {
        let entry = state.withLock { $0.entries.removeValue(forKey: session) }
        await entry?.transaction.abort()
    }

    private static func tooOld(_ txnNumber: Int64, newest: Int64) -> StoreError {
        StoreError(
            code: 225,
            message:
                "Cannot start transaction \(txnNumber) on session because a newer transaction \(newest) has already "
                + "started")
    }
}
