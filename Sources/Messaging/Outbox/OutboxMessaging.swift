import BSON
import Foundation
import Synchronization

/// A `PushMessaging` that delivers nothing: it validates each message as FCM would (invalid messages throw
/// `invalidArgument` and are not recorded) and records the accepted ones as `OutboxEntry`s, in memory
/// (`entries`) and through `sink`, so a runtime can keep them in its own store. Topic and condition messages
/// record which tokens of `topics` they reached. `entries` keeps the newest `entryLimit` (1,000 by default): it serves
/// tests that read what was just sent, while the sink keeps the history (the app's `local.outbox` keeps 10,000), so
/// memory stays bounded however many messages a running app sends. The FCM emulator endpoint of `switchyard serve` sends through
/// it too, so messages sent over HTTP and in process end up in the same outbox.
///
/// Fault injection (`faults`, see `FaultSettings`): unregistered tokens, bursts of `UNAVAILABLE`, `INTERNAL` and
/// `QUOTA_EXCEEDED`, a rate limit and latency. Injected failures are recorded as failed entries (with `error`
/// set and no payload). `validateOnly` sends are checked (including unregistered tokens) but never recorded and
/// use up no injected failure, and return `projects/<project>/messages/fake_message_id` as FCM does.
package final class OutboxMessaging: PushMessaging {
    /// Receives each entry before it is added to `entries`; if it throws, the send fails with `INTERNAL`.
    package typealias Sink = @Sendable (OutboxEntry) async throws -> Void

    package let project: String
    /// The `from` a device sees for token and condition messages (FCM's sender id).
    package let senderId: String
    /// Who is subscribed to which topic: what topic and condition messages reach.
    package let topics: TopicSubscriptions
    /// Which platform each token belongs to: what decides the views an entry records.
    package let devices: DeviceRegistry
    private let sink: Sink
    private let clock: @Sendable () -> BSONDate
    /// The most entries `entries` keeps; older ones are dropped (the sink's copies are the sink's business).
    package let entryLimit: Int
    private let state: Mutex<State>

    private struct State {
        /// The newest entries, a ring once full: `oldest` is where the oldest one is, and the next is written.
        var entries: [OutboxEntry] = []
        var oldest = 0
        var nextId: UInt64
        var faults: FaultSettings
        /// `failNextSends` with a code `FaultSettings` has no count for.
        var otherFailures = 0
        var otherFailureCode = PushError.Code.unavailable
        /// When the sends of the last second were accepted, for `faults.rateLimit`.
        var recentSends: [ContinuousClock.Instant] = []
        var malformedTokens: Set<String> = []
    }

    /// - Parameters:
    ///   - project: the Firebase project id in message names.
    ///   - senderId: `from` for token and condition messages; the project id when nil.
    ///   - clock: the time stamped on entries.
    ///   - sink: where entries go besides `entries` (the runtime's store).
    ///   - topics: the topic subscriptions that say whom topic and condition messages reach.
    ///   - devices: the platforms tokens were registered with.
    ///   - faults: the failures to inject from the start.
    ///   - entryLimit: the most entries `entries` keeps (at least 1).
    package init(
        project: String = "switchyard-local", senderId: String? = nil,
        clock: @escaping @Sendable () -> BSONDate = OutboxMessaging.now,
        topics: TopicSubscriptions = TopicSubscriptions(), devices: DeviceRegistry = DeviceRegistry(),
        faults: FaultSettings = FaultSettings(), entryLimit: Int = OutboxMessaging.defaultEntryLimit,
        sink: @escaping Sink = { _ in }
    ) {
        self.entryLimit = max(1, entryLimit)
        self.project = project
        self.senderId = senderId ?? project
        self.clock = clock
        self.topics = topics
        self.devices = devices
        self.sink = sink
        // Ids start at the current time in microseconds so names stay unique across restarts, like FCM's.
        let start = UInt64(max(0, Date().timeIntervalSince1970 * 1_000_000))
        self.state = Mutex(State(nextId: start, faults: faults))
    }

    package static let defaultEntryLimit = 1000

    package static let now: @Sendable () -> BSONDate = {
        BSONDate(millisecondsSinceEpoch: Int64(Date().timeIntervalSince1970 * 1000))
    }

    /// The newest `entryLimit` entries recorded, oldest first.
    package var entries: [OutboxEntry] {
        state.withLock { Array($0.entries[$0.oldest...] + $0.entries[..<$0.oldest]) }
    }

    /// Forgets the recorded entries (the sink's copies are the sink's business).
    package func removeAllEntries() {
        state.withLock {
            $0.entries.removeAll()
            $0.oldest = 0
        }
    }

    /// The failures injected from now on; counts go down as failures are injected.
    package var faults: FaultSettings {
        get { state.withLock { $0.faults } }
        set { state.withLock { $0.faults = newValue } }
    }

    /// Registration tokens that answer `UNREGISTERED`, like a token whose app was uninstalled
    /// (`faults.unregisteredTokens`).
    package var unregisteredTokens: Set<String> {
        get { state.withLock { $0.faults.unregisteredTokens } }
        set { state.withLock { $0.faults.unregisteredTokens = newValue } }
    }

    /// Registration tokens that FCM refuses as not being tokens at all: `INVALID_ARGUMENT` about `message.token`,
    /// as FCM answers for a string that never was a token (strings that cannot be one, see `RegistrationToken`,
    /// are refused so without being listed here).
    package var malformedTokens: Set<String> {
        get { state.withLock { $0.malformedTokens } }
        set { state.withLock { $0.malformedTokens = newValue } }
    }

    /// Makes the next `count` deliveries fail with `code` (each token of a multicast is one delivery): sets
    /// `faults.unavailable`, `.internalErrors` or `.quotaExceeded` for those codes.
    package func failNextSends(_ count: Int, with code: PushError.Code = .unavailable) {
        state.withLock {
            let count = max(0, count)
            switch code {
            case .unavailable: $0.faults.unavailable = count
            case .internal: $0.faults.internalErrors = count
            case .quotaExceeded: $0.faults.quotaExceeded = count
            default:
                $0.otherFailures = count
                $0.otherFailureCode = code
            }
        }
    }

    /// Uses up one of `faults.connectionResets`: true when the caller (an HTTP endpoint) should drop this
    /// request's connection unanswered.
    package func takeConnectionReset() -> Bool {
        state.withLock {
            guard $0.faults.connectionResets > 0 else { return false }
            $0.faults.connectionResets -= 1
            return true
        }
    }

    package func send(_ message: PushMessage, validateOnly: Bool = false) async throws(PushError) -> String {
        try message.validate()
        await delay()
        if validateOnly {
            if let error = unregisteredError(for: message.target) { throw error }
            return "projects/\(project)/messages/fake_message_id"
        }
        return try await deliver(message).get()
    }

    package func sendEachForMulticast(
        _ message: MulticastMessage, validateOnly: Bool = false
    ) async throws(PushError) -> BatchResponse {
        try message.validate()
        await delay()
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

    /// `faults.latency`, once per call.
    private func delay() async {
        let latency = state.withLock { $0.faults.latency }
        if latency > .zero { try? await Task.sleep(for: latency) }
    }

    /// The answer for a token (or FID) that cannot be one, or was made unregistered or malformed.
    private func unregisteredError(for target: PushMessage.Target) -> PushError? {
        let token: String
        switch target {
        case .token(let device), .fid(let device): token = device
        case .topic, .condition: return nil
        }
        let (unregistered, malformed) = state.withLock {
            ($0.faults.unregisteredTokens.contains(token), $0.malformedTokens.contains(token))
        }
        if malformed || !RegistrationToken.isWellFormed(token) {
            return PushError(
                code: .invalidArgument, message: "The registration token is not a valid FCM registration token",
                field: "message.\(target.fieldName)")
        }
        if unregistered { return PushError(code: .unregistered, message: "Requested entity was not found.") }
        return nil
    }

    /// Records one validated message and returns its name, or the injected failure.
    private func deliver(_ message: PushMessage) async -> Result<String, PushError> {
        let (id, injected, unregistered) = state.withLock { state -> (UInt64, PushError.Code?, Set<String>) in
            state.nextId += 1
            return (state.nextId, Self.takeFailure(&state), state.faults.unregisteredTokens)
        }
        let name = "projects/\(project)/messages/\(id)"
        var error = injected.map { PushError(code: $0, message: "Injected failure: \($0.rawValue).") }
        if error == nil { error = unregisteredError(for: message.target) }
        let reached = error == nil ? topics.tokens(reachedBy: message.target).filter { !unregistered.contains($0) } : []
        let time = clock()
        var entry = OutboxEntry(
            name: name, target: message.target, request: message.sendRequestDocument(),
            payload: error == nil
                ? DevicePayload.document(for: message, messageId: String(id), senderId: senderId) : nil,
            time: time, error: error, reachedTokens: reached)
        if error == nil { record(message, messageId: String(id), sentTime: time, reaching: reached, in: &entry) }
        do {
            try await sink(entry)
        } catch {
            return .failure(PushError(code: .internal, message: "The outbox could not record \(name): \(error)"))
        }
        state.withLock { state in
            if state.entries.count < entryLimit {
                state.entries.append(entry)
            } else {
                state.entries[state.oldest] = entry
                state.oldest = (state.oldest + 1) % entryLimit
            }
        }
        if let error { return .failure(error) }
        return .success(name)
    }

    /// Adds the views of the platforms `reached` belong to: a token of unknown platform, or no token at all,
    /// gets the iOS and the Android view.
    private func record(
        _ message: PushMessage, messageId: String, sentTime: BSONDate, reaching reached: [String],
        in entry: inout OutboxEntry
    ) {
        var platforms: Set<DevicePlatform> = reached.isEmpty ? [.ios, .android] : []
        for token in reached {
            if let platform = devices.platform(of: token) {
                entry.platforms[token] = platform
                platforms.insert(platform)
            } else {
                platforms.formUnion([.ios, .android])
            }
        }
        var from = senderId
        if case .topic = message.target { from = "/topics/\(message.target.value)" }
        if platforms.contains(.ios) {
            entry.ios = IOSDelivery(delivering: message, messageId: messageId, senderId: senderId, sentTime: sentTime)
        }
        if platforms.contains(.android) {
            entry.android = AndroidDelivery(delivering: message, messageId: messageId, from: from, sentTime: sentTime)
        }
        if platforms.contains(.web) { entry.web = WebDelivery(delivering: message, messageId: messageId, from: from) }
    }

    /// The failure injected into this delivery, if any, using it up: rate limits first (FCM refuses before it
    /// looks at the message), then the bursts.
    private static func takeFailure(_ state: inout State) -> PushError.Code? {
        if state.faults.rateLimit > 0 {
            let now = ContinuousClock.now
            state.recentSends.removeAll { now - $0 >= .seconds(1) }
            if state.recentSends.count >= state.faults.rateLimit { return .quotaExceeded }
            state.recentSends.append(now)
        }
        if state.faults.quotaExceeded > 0 {
            state.faults.quotaExceeded -= 1
            return .quotaExceeded
        }
        if state.faults.unavailable > 0 {
            state.faults.unavailable -= 1
            return .unavailable
        }
        if state.faults.internalErrors > 0 {
            state.faults.internalErrors -= 1
            return .internal
        }
        if state.otherFailures > 0 {
            state.otherFailures -= 1
            return state.otherFailureCode
        }
        return nil
    }
}
