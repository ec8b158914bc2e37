import BSON
import DocumentStore
import Synchronization

/// The store's change stream read once for all of a runtime's database triggers (those asking for the
/// same pre-image option): every trigger routes every event, so with a stream each, each event was read
/// and decoded once per trigger. The feed keeps the newest events (512 to 1,024: what four streams of
/// their own could buffer); a trigger reads them at its own pace from its own position (`Cursor`). One
/// that falls behind the window (catching up after a restart, or slower than the writers) reads from a
/// stream of its own until it is back inside, so a slow trigger never holds up the others and memory
/// stays bounded.
///
/// There is no reading task: the first cursor that wants an event the feed does not have yet reads it
/// from the shared stream (the others wait for it), so one trigger alone costs no extra hop.
final class ChangeFeed: Sendable {
    /// An event as the feed holds it: one reference that every cursor shares (a `ChangeEvent` copied
    /// to each of 20 triggers cost more than their functions), with its id formatted once for all.
    final class Entry: Sendable {
        let event: ChangeEvent
        /// `event.id.data`: what invocations and saved states carry.
        let eventId: String

        init(_ event: ChangeEvent) {
            self.event = event
            eventId = event.id.data
        }

        var sequence: Int64 { event.id.sequence }
    }

    private struct State {
        /// Events after `floor` up to `newest`, in log order: every event in that range is here.
        var events: [Entry] = []
        var floor: Int64
        var newest: Int64
        /// The shared stream, after `newest`; nil while a cursor reads from it (or before the first read).
        var stream: SharedStream?
        var reading = false
        /// The store closed: cursors end too.
        var ended = false
        /// Opening or reading the stream failed: cursors read the store directly and meet the error themselves.
        var failed = false
        var waiters: [Int: UnsafeContinuation<Void, Never>] = [:]
        var nextWaiter = 0
        let capacity: Int

        mutating func takeWaiters() -> [UnsafeContinuation<Void, Never>] {
            guard !waiters.isEmpty else { return [] }
            // The table keeps its storage: the same cursors wait again after the next event.
            defer { waiters.removeAll(keepingCapacity: true) }
            return Array(waiters.values)
        }

        mutating func append(_ entry: Entry) {
            events.append(entry)
            newest = entry.sequence
            guard events.count > capacity else { return }
            let dropped = events.count - capacity / 2
            floor = events[dropped - 1].sequence
            events.removeFirst(dropped)
        }
    }

    /// The stream's iterator, handed from one reading cursor to the next under the feed's lock.
    private final class SharedStream: @unchecked Sendable {
        // Unchecked: `iterator` is used only by the cursor holding the reader's turn (`State.reading`),
        // which takes it out of the state under the lock and puts it back under the lock.
        var iterator: ChangeStream.Iterator

        init(_ iterator: ChangeStream.Iterator) {
            self.iterator = iterator
        }
    }

    let store: DocumentStore
    let preImages: Bool
    private let state: Mutex<State>

    /// Follows the log from after `position` (the log's end when the runtime started), keeping between
    /// `capacity / 2` and `capacity` of the newest events.
    init(store: DocumentStore, preImages: Bool, after position: Int64, capacity: Int = 1_024) {
        self.store = store
        self.preImages = preImages
        state = Mutex(State(floor: position, newest: position, capacity: max(2, capacity)))
    }

    /// With the expanded DDL events, which triggers on CREATE_COLLECTION, CREATE_INDEXES and the like
    /// receive; each trigger's route keeps only its own operation types.
    func options(resumeAfter position: Int64?) -> ChangeStreamOptions {
        ChangeStreamOptions(
            fullDocumentBeforeChange: preImages ? .whenAvailable : .off,
            resumeAfter: position.map { ResumeToken(sequence: $0) }, showExpandedEvents: true)
    }

    private enum Read {
        case entry(Entry)
        /// Nothing after the position yet.
        case caughtUp
        /// The position is before the feed's window (or reading the feed failed): read the store directly.
        case outside
        case ended
    }

    /// The entry right after `position`: one at a time, so a cursor following the log allocates nothing.
    private func entry(after position: Int64) -> Read {
        state.withLock { state in
            if state.ended { return .ended }
            guard !state.failed, position >= state.floor else { return .outside }
            guard position < state.newest else { return .caughtUp }
            // Sequences rise along `events`: the first one after `position`, by bisection.
            var low = 0
            var high = state.events.count
            while low < high {
                let middle = (low + high) / 2
                if state.events[middle].sequence <= position { low = middle + 1 } else { high = middle }
            }
            // `newest` is the last of `events` and after `position`: there is one.
            guard low < state.events.count else { return .caughtUp }
            return .entry(state.events[low])
        }
    }

    /// Returns once the feed has an event after `position` (reading it from the store if no other cursor
    /// is), ended or failed, or the task is cancelled.
    private func advance(after position: Int64) async {
        enum Turn {
            case ready
            case wait
            case read(SharedStream?, after: Int64)
        }
        let turn = state.withLock { state -> Turn in
            if state.ended || state.failed || state.newest > position { return .ready }
            if state.reading { return .wait }
            state.reading = true
            defer { state.stream = nil }
            return .read(state.stream, after: state.newest)
        }
        switch turn {
        case .ready: return
        case .wait: await wait(after: position)
        case .read(let stream, let newest): await read(stream, after: newest)
        }
    }

    /// Reads the next event of the shared stream into the feed, then hands the stream back.
    private func read(_ shared: SharedStream?, after newest: Int64) async {
        var outcome: (event: ChangeEvent?, stream: SharedStream?, failed: Bool)
        do {
            let stream: SharedStream
            if let shared {
                stream = shared
            } else {
                stream = SharedStream(
                    try await store.watch([], options: options(resumeAfter: newest)).makeAsyncIterator())
            }
            outcome = (try await stream.iterator.next(), stream, false)
        } catch {
            outcome = (nil, nil, true)
        }
        let cancelled = Task.isCancelled
        let waiters = state.withLock { state in
            state.reading = false
            if let event = outcome.event {
                state.append(Entry(event))
                state.stream = outcome.stream
            } else if outcome.failed {
                state.failed = true
            } else if !cancelled {
                state.ended = true
            }
            // A cancelled reader's stream is over; the next reader opens another after `newest`.
            return state.takeWaiters()
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns when the reading cursor is done (the feed has more, ended, or needs a new reader), or the
    /// task is cancelled.
    private func wait(after position: Int64) async {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                let ready = state.withLock { state -> Bool in
                    // A cancellation before this point set the flag first: checked under the same lock.
                    if !state.reading || state.newest > position || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// One trigger's read position in the feed.
    struct Cursor {
        let feed: ChangeFeed
        /// The last event returned (or the position it started after).
        private(set) var position: Int64
        /// While the position is outside the feed's window: a stream of the trigger's own.
        private var ownStream: ChangeStream.Iterator?

        /// Starts after `position`, or after the log's current end when nil. Throws `ChangeStreamHistoryLost`
        /// when the position is no longer in the log.
        static func open(_ feed: ChangeFeed, after position: Int64?) async throws -> Cursor {
            guard let position else {
                let end = try await feed.store.watch([], options: feed.options(resumeAfter: nil)).startingPoint
                return Cursor(feed: feed, position: end.sequence)
            }
            var cursor = Cursor(feed: feed, position: position)
            if case .outside = feed.entry(after: position) {
                cursor.ownStream = try await feed.store.watch([], options: feed.options(resumeAfter: position))
                    .makeAsyncIterator()
            }
            return cursor
        }

        private init(feed: ChangeFeed, position: Int64) {
            self.feed = feed
            self.position = position
        }

        /// The next event in log order; nil when the task is cancelled or the store closed.
        mutating func next() async throws -> Entry? {
            while true {
                if Task.isCancelled { return nil }
                switch feed.entry(after: position) {
                case .entry(let entry):
                    ownStream = nil
                    position = entry.sequence
                    return entry
                case .caughtUp:
                    ownStream = nil
                    await feed.advance(after: position)
                case .ended:
                    return nil
                case .outside:
                    if ownStream == nil {
                        ownStream = try await feed.store.watch([], options: feed.options(resumeAfter: position))
                            .makeAsyncIterator()
                    }
                    guard let event = try await ownStream?.next() else { return nil }
                    position = event.id.sequence
                    return Entry(event)
                }
            }
        }
    }
}
