import BSON
import DocumentStore
import Synchronization

/// The events of a `byDocumentKey` trigger that were read from the log and have not started yet, queued per
/// document, and which documents have a delivery task. A document's task delivers its events one at a time, in
/// the order they were read (commit order), and ends when its queue is empty; at most `maxConcurrency` documents
/// have a task at once, and at most `queueLimit` events wait, so a reader faster than the functions waits instead
/// of holding the whole log in memory.
final class DocumentQueues: Sendable {
    /// One event to deliver: what the trigger's route made of it, and the log entry it came from.
    struct Work: Sendable {
        let event: ChangeEvent
        let entry: ChangeFeed.Entry
    }

    /// What became of an event handed to `admit`.
    enum Admission: Equatable {
        /// Its document has a task, which delivers it after the document's earlier events.
        case queued
        /// Its document had no task: the caller starts one with this event.
        case start
        /// Every task slot (or the waiting room) is taken: the caller waits for a document's task to end and
        /// asks again.
        case full
    }

    /// A document's identity for ordering: its namespace and its `documentKey` (the same `_id` in two
    /// collections of a database-wide trigger is two documents).
    struct Key: Hashable, Sendable {
        let namespace: Namespace?
        let documentKey: BSONDocument?

        init(_ event: ChangeEvent) {
            namespace = event.namespace
            documentKey = event.documentKey
        }
    }

    /// A document's waiting events, oldest first.
    private struct Queue {
        var items: [Work] = []
        var head = 0

        var isEmpty: Bool { head == items.count }

        mutating func append(_ work: Work) { items.append(work) }

        mutating func popFirst() -> Work? {
            guard head < items.count else { return nil }
            defer {
                head += 1
                // Drop what was taken once it outweighs what waits, so a busy document's array stays short.
                if head >= 32, head * 2 >= items.count {
                    items.removeFirst(head)
                    head = 0
                }
            }
            return items[head]
        }

        var remaining: ArraySlice<Work> { items[head...] }
    }

    private struct State {
        /// Documents with a task, and their waiting events.
        var documents: [Key: Queue] = [:]
        var waiting = 0
    }

    let maxConcurrency: Int
    let queueLimit: Int
    private let state = Mutex(State())

    /// How many events may wait beyond those running: a few per task slot, so a document with a burst of
    /// changes does not stall the reader at once, and no more than a few thousand in all.
    static func queueLimit(maxConcurrency: Int) -> Int { min(4_096, max(64, 4 * maxConcurrency)) }

    init(maxConcurrency: Int) {
        self.maxConcurrency = max(1, maxConcurrency)
        queueLimit = Self.queueLimit(maxConcurrency: self.maxConcurrency)
    }

    /// Queues `work` behind its document's earlier events, or tells the caller to start its document's task.
    func admit(_ work: Work, key: Key) -> Admission {
        state.withLock { state in
            if state.documents[key] != nil {
                guard state.waiting < queueLimit else { return .full }
                state.documents[key]!.append(work)
                state.waiting += 1
                return .queued
            }
            guard state.documents.count < maxConcurrency else { return .full }
            state.documents[key] = Queue()
            return .start
        }
    }

    /// The document's next event; nil when it has none waiting, and its task ends (a later event starts a new one).
    func next(for key: Key) -> Work? {
        state.withLock { state in
            guard let work = state.documents[key]?.popFirst() else {
                state.documents[key] = nil
                return nil
            }
            state.waiting -= 1
            return work
        }
    }

    /// Ends the document's task without delivering what waits (the runtime is stopping); returns how many
    /// events were waiting.
    func close(_ key: Key) -> Int {
        state.withLock { state in
            let count = state.documents.removeValue(forKey: key)?.remaining.count ?? 0
            state.waiting -= count
            return count
        }
    }
}
