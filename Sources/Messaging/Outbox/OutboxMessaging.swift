import BSON
import Foundation
import Synchronization

/// A `PushMessaging` that delivers nothing: it validates each message as FCM would (invalid messages throw
/// `invalidArgument` and are not recorded) and records the accepted ones as `OutboxEntry`s, in memory
/// (`entries`) and through `sink`, so a runtime can keep them in its own store.
///
/// Fault injection for tests: tokens in `unregisteredTokens` answer `UNREGISTERED`, tokens in `malformedTokens`
/// answer `INVALID_ARGUMENT` about `message.token` (as FCM does for a string that never was a token), and `failNextSends(_:)`
/// makes the next sends answer `UNAVAILABLE`; both are recorded as failed entries (with `error` set and no
/// payload). `validateOnly` sends are checked (including unregistered tokens) but never recorded, and return
/// `projects/<project>/messages/fake_message_id` as FCM does.
public final class OutboxMessaging: PushMessaging {
    /// Receives each entry before it is added to `entries`; if it throws, the send fails with `INTERNAL`.
    public typealias Sink = @Sendable (OutboxEntry) async throws -> Void

    public let project: String
    /// The `from` a device sees for token and condition messages (FCM's sender id).
    public let senderId: String
    private let sink: Sink
    private let clock: @Sendable () -> BSONDate
    private let state: Mutex<State>

    private struct State {
        var entries: [OutboxEntry] = []
        var nextId: UInt64
        var unregisteredTokens: Set<String> = []
        var malformedTokens: Set<String> = []
        var failuresLeft = 0
        var failureCode = PushError.Code.unavailable
    }

    /// - Parameters:
    ///   - project: the Firebase project id in message names.
    ///   - senderId: `from` for token and condition messages; the project id when nil.
    ///   - clock: the time stamped on entries.
    ///   - sink: where entries go besides `entries` (the runtime's store).
    public init(
        project: String = "switchyard-local", senderId: String? = nil,
        clock: @escaping @Sendable () -> BSONDate = OutboxMessaging.now, sink: @escaping Sink = { _ in }
    ) {
        self.project = project
        self.senderId = senderId ?? project
        self.clock = clock
        self.sink = sink
        // Ids start at the current time in microseconds so names stay unique across restarts, like FCM's.
        let start = UInt64(max(0, Date().timeIntervalSince1970 * 1_000_000))
        self.state = Mutex(State(nextId: start))
    }

    public static let now: @Sendable () -> BSONDate = {
        BSONDate(millisecondsSinceEpoch: Int64(Date().timeIntervalSince1970 * 1000))
    }

    /// Everything recorded so far, oldest first.
    public var entries: [OutboxEntry] { state.withLock { $0.entries } }

    /// Forgets the recorded entries (the sink's copies are the sink's business).
    public func removeAllEntries() { state.withLock { $0.entries.removeAll() } }

    /// Registration tokens that answer `UNREGISTERED`, like a token whose app was uninstalled.
    public var unregisteredTokens: Set<String> {
        get { state.withLock { $0.unregisteredTokens } }
        set { state.withLock { $0.unregisteredTokens = newValue } }
    }

    /// Registration tokens that FCM refuses as not being tokens at all (`INVALID_ARGUMENT` on `message.token`).
    public var malformedTokens: Set<String> {
        get { state.withLock { $0.malformedTokens } }
        set { state.withLock { $0.malformedTokens = newValue } }
    }

    /// Makes the next `count` deliveries fail with `code` (each token of a multicast is one delivery).
    public func failNextSends(_ count: Int, with code: PushError.Code = .unavailable) {
        state.withLock {
            $0.failuresLeft = max(0, count)
            $0.failureCode = code
        }
    }

    public func send(_ message: PushMessage, validateOnly: Bool = false) async throws(PushError) -> String {
        try message.validate()
        if validateOnly {
            if let error = unregisteredError(for: message.target) { throw error }
            return "projects/\(project)/messages/fake_message_id"
        }
        return try await deliver(message).get()
    }

    public func sendEachForMulticast(
        _ message: MulticastMessage, validateOnly: Bool = false
    ) async throws(PushError) -> BatchResponse {
        try message.validate()
        var results: [BatchResponse.Result] = []
        for token in message.tokens {
            let outcome: Result<String, PushError>
            if validateOnly {
                outcome =
                    unregisteredError(for: .token(token)).map { .failure($0) }
                    ?? .success("projects/\(project)/messages/fake_message_id")
            } else {
                outcome = await deliver(message.message(to: token))
            }
            switch outcome {
            case .success(let name): results.append(.init(token: token, messageName: name))
            case .failure(let error): results.append(.init(token: token, error: error))
            }
        }
        return BatchResponse(results: results)
    }

    /// The answer for a token the test made unregistered or malformed.
    private func unregisteredError(for target: PushMessage.Target) -> PushError? {
        guard case .token(let token) = target else { return nil }
        let (unregistered, malformed) = state.withLock {
            ($0.unregisteredTokens.contains(token), $0.malformedTokens.contains(token))
        }
        if unregistered {
            return PushError(code: .unregistered, message: "Requested entity was not found.")
        }
        if malformed {
            return PushError(
                code: .invalidArgument, message: "The registration token is not a valid FCM registration token",
                field: "message.token")
        }
        return nil
    }

    /// Records one validated message and returns its name, or the injected failure.
    private func deliver(_ message: PushMessage) async -> Result<String, PushError> {
        let (id, injected) = state.withLock { state -> (UInt64, PushError.Code?) in
            state.nextId += 1
            guard state.failuresLeft > 0 else { return (state.nextId, nil) }
            state.failuresLeft -= 1
            return (state.nextId, state.failureCode)
        }
        let name = "projects/\(project)/messages/\(id)"
        var error = injected.map { PushError(code: $0, message: "Injected failure: \($0.rawValue).") }
        if error == nil { error = unregisteredError(for: message.target) }
        let entry = OutboxEntry(
            name: name, target: message.target, request: message.sendRequestDocument(),
            payload: error == nil
                ? DevicePayload.document(for: message, messageId: String(id), senderId: senderId) : nil,
            time: clock(), error: error)
        do {
            try await sink(entry)
        } catch {
            return .failure(PushError(code: .internal, message: "The outbox could not record \(name): \(error)"))
        }
        state.withLock { $0.entries.append(entry) }
        if let error { return .failure(error) }
        return .success(name)
    }
}
