import BSON
import DocumentStore
import Synchronization

/// A change stream opened by `aggregate` with `$changeStream`: a task reads the stream into a bounded buffer, and
/// each getMore takes what is there, waiting up to its `maxTimeMS` when nothing is. The buffer's bound holds the
/// reader back (nothing is dropped): a client that stops reading costs at most `capacity` events.
final class ChangeStreamCursor: Sendable {
    static let capacity = 1000

    private struct Waiter {
        var id: Int
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var events: [BSONDocument] = []
        /// The token of the last event read off the stream (the stream's start before any).
        var lastToken: BSONDocument
        /// The token of the last event handed to the client: a batch's postBatchResumeToken.
        var handedToken: BSONDocument
        var failure: StoreError?
        var finished = false
        var reader: Waiter?
        var pump: CheckedContinuation<Void, Never>?
        var nextWaiterId = 0
    }

    private let state: Mutex<State>
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(stream: ChangeStream) {
        let start = stream.startingPoint.document
        state = Mutex(State(lastToken: start, handedToken: start))
        let pumping = Task { [self] in await pump(stream) }
        task.withLock { $0 = pumping }
    }

    private func pump(_ stream: ChangeStream) async {
        do {
            for try await event in stream {
                let full = state.withLock { state -> Bool in
                    state.events.append(event.raw)
                    state.lastToken = event.id.document
                    return state.events.count >= Self.capacity
                }
                wakeReader(nil)
                if full {
                    await withCheckedContinuation { continuation in
                        let resume = state.withLock { state -> Bool in
                            guard state.events.count >= Self.capacity, !Task.isCancelled else { return true }
                            state.pump = continuation
                            return false
                        }
                        if resume { continuation.resume() }
                    }
                }
            }
            state.withLock { $0.finished = true }
        } catch let error as StoreError {
            state.withLock {
                $0.failure = error
                $0.finished = true
            }
        } catch {
            state.withLock {
                $0.failure = StoreError(code: .changeStreamFatalError, message: "\(error)")
                $0.finished = true
            }
        }
        wakeReader(nil)
    }

    /// Up to `limit` events, waiting up to `wait` for the first; with the batch's postBatchResumeToken and whether
    /// the stream ended (invalidated or the store closed).
    func next(limit: Int, wait: Duration) async throws(StoreError) -> (
        events: [BSONDocument], postBatchResumeToken: BSONDocument, finished: Bool
    ) {
        if wait > .zero, state.withLock({ $0.events.isEmpty && !$0.finished }) {
            await waitForEvents(upTo: wait)
        }
        let (taken, pump, failure) = state.withLock {
            state -> ([BSONDocument], CheckedContinuation<Void, Never>?, StoreError?) in
            let count = min(max(limit, 0), state.events.count)
            let taken = Array(state.events.prefix(count))
            state.events.removeFirst(count)
            if let last = taken.last, case .document(let token)? = last["_id"] {
                state.handedToken = token
            }
            if state.events.isEmpty && state.failure == nil && !state.finished { state.handedToken = state.lastToken }
            let pump = state.pump
            state.pump = nil
            return (taken, pump, taken.isEmpty ? state.failure : nil)
        }
        pump?.resume()
        if let failure { throw failure }
        let (token, finished) = state.withLock { ($0.handedToken, $0.finished && $0.events.isEmpty) }
        return (taken, token, finished && failure == nil)
    }

    private func waitForEvents(upTo wait: Duration) async {
        let id = state.withLock { state in
            state.nextWaiterId += 1
            return state.nextWaiterId
        }
        let timer = Task { [self] in
            try? await Task.sleep(for: wait)
            wakeReader(id)
        }
        await withCheckedContinuation { continuation in
            let resume = state.withLock { state -> Bool in
                guard state.events.isEmpty, !state.finished else { return true }
                state.reader = Waiter(id: id, continuation: continuation)
                return false
            }
            if resume { continuation.resume() }
        }
        timer.cancel()
    }

    /// Resumes the waiting getMore: any (`id` nil, events came) or only the one whose timer ran out.
    private func wakeReader(_ id: Int?) {
        let waiter = state.withLock { state -> Waiter? in
            guard let waiter = state.reader, id == nil || waiter.id == id else { return nil }
            state.reader = nil
            return waiter
        }
        waiter?.continuation.resume()
    }

    func cancel() {
        task.withLock { $0?.cancel() }
        let pump = state.withLock { state in
            state.finished = true
            defer { state.pump = nil }
            return state.pump
        }
        pump?.resume()
        wakeReader(nil)
    }
}
