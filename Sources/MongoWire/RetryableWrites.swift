import BSON
import Synchronization

/// What each session's last retryable write answered, by its `lsid` and `txnNumber`: a retry of that write (same
/// session, same number) gets the answer again instead of being applied twice. Bounded: past `capacity` sessions
/// the longest unused is forgotten, as a server forgets sessions idle past `logicalSessionTimeoutMinutes`.
final class RetryableWrites: Sendable {
    private struct Record {
        var txnNumber: Int64
        var reply: BSONDocument
        var used: UInt64
    }

    private struct State {
        var records: [BSON: Record] = [:]
        var clock: UInt64 = 0
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int = 10_000) {
        self.capacity = capacity
    }

    /// The stored reply when `txnNumber` is the session's last recorded write.
    func reply(session: BSON, txnNumber: Int64) -> BSONDocument? {
        state.withLock { state in
            guard var record = state.records[session], record.txnNumber == txnNumber else { return nil }
            state.clock += 1
            record.used = state.clock
            state.records[session] = record
            return record.reply
        }
    }

    func record(session: BSON, txnNumber: Int64, reply: BSONDocument) {
        state.withLock { state in
            state.clock += 1
            if let existing = state.records[session], existing.txnNumber > txnNumber { return }
            state.records[session] = Record(txnNumber: txnNumber, reply: reply, used: state.clock)
            if state.records.count > capacity,
                let oldest = state.records.min(by: { $0.value.used < $1.value.used })?.key
            {
                state.records[oldest] = nil
            }
        }
    }

    func forget(session: BSON) {
        _ = state.withLock { $0.records.removeValue(forKey: session) }
    }
}
