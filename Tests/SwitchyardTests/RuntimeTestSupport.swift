import BSON
import DocumentStore
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Switchyard

enum StoreKind: String, CaseIterable, Sendable {
    case memory, sqlite
}

/// A store of `kind` in a directory of its own, closed after `body`.
func withStore(
    _ kind: StoreKind, retention: ChangeLogRetention = .init(),
    _ body: (DocumentStore, TemporaryDirectory) async throws -> Void
) async throws {
    let directory = try TemporaryDirectory()
    let engine: StoreConfiguration.Engine = kind == .memory ? .memory : .sqlite(directory: directory.path)
    let store = try await DocumentStore.open(StoreConfiguration(engine: engine, changeLogRetention: retention))
    do {
        try await body(store, directory)
    } catch {
        await store.close()
        throw error
    }
    await store.close()
}

/// Every invocation a test handler received, in arrival order.
final class DeliveryLog: Sendable {
    private let entries = Mutex<[TriggerInvocation]>([])

    func record(_ invocation: TriggerInvocation) {
        entries.withLock { $0.append(invocation) }
    }

    var all: [TriggerInvocation] { entries.withLock { $0 } }

    func of(_ trigger: String) -> [TriggerInvocation] { all.filter { $0.trigger.name == trigger } }

    /// The `_id`s of the database events `trigger` received, in order.
    func keys(_ trigger: String) -> [BSON] {
        of(trigger).compactMap { invocation in
            guard case .database(let event) = invocation.input else { return nil }
            return event.documentKey?["_id"]
        }
    }

    func events(_ trigger: String) -> [ChangeEvent] {
        of(trigger).compactMap { invocation in
            guard case .database(let event) = invocation.input else { return nil }
            return event
        }
    }
}

struct InjectedFailure: Error, CustomStringConvertible {
    var description: String { "injected failure" }
}

/// Retries at once. A backoff that ends as it starts is due at every later look, so `awaitIdle` waits for every
/// attempt; a backoff of a few milliseconds was still to come when `awaitIdle` looked under load, which let it
/// return between attempts.
extension RetryPolicy {
    static func quick(_ attempts: Int) -> RetryPolicy {
        RetryPolicy(maxAttempts: attempts, initialBackoff: .zero, maxBackoff: .zero)
    }
}

func databaseTrigger(
    _ name: String, scope: WatchScope = .collection(database: "app", collection: "books"),
    operations: Set<DatabaseOperation> = Set(DatabaseOperation.documentOperations), function: String = "onChange",
    disabled: Bool = false, fullDocument: Bool = false, fullDocumentBeforeChange: Bool = false,
    match: BSONDocument = [:], project: BSONDocument = [:], delivery: DeliveryOrder = .ordered,
    skipCatchupEvents: Bool = false, tolerateResumeErrors: Bool = false, retry: RetryPolicy = .quick(3)
) -> TriggerDefinition {
    TriggerDefinition(
        name: name, function: function, disabled: disabled,
        kind: .database(
            DatabaseTrigger(
                scope: scope, operations: operations, fullDocument: fullDocument,
                fullDocumentBeforeChange: fullDocumentBeforeChange, match: match, project: project, delivery: delivery,
                skipCatchupEvents: skipCatchupEvents, tolerateResumeErrors: tolerateResumeErrors, retry: retry)))
}

/// A clock tests move by hand: `sleep(until:)` returns once `advance(to:)` has passed the deadline.
final class ManualClock: TriggerClock {
    private struct State {
        var now: Date
        var sleepers: [UUID: (deadline: Date, continuation: CheckedContinuation<Void, any Error>)] = [:]
        var cancelled: Set<UUID> = []
    }

    private let state: Mutex<State>

    init(_ now: Date) {
        state = Mutex(State(now: now))
    }

    func now() -> Date { state.withLock { $0.now } }

    func advance(to time: Date) {
        let due = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.now = time
            let ready = state.sleepers.filter { $0.value.deadline <= time }
            for id in ready.keys { state.sleepers[id] = nil }
            return ready.values.map(\.continuation)
        }
        for continuation in due { continuation.resume() }
    }

    func sleep(until deadline: Date) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Bool? in
                    if state.cancelled.remove(id) != nil { return false }
                    if state.now >= deadline { return true }
                    state.sleepers[id] = (deadline, continuation)
                    return nil
                }
                switch outcome {
                case true?: continuation.resume()
                case false?: continuation.resume(throwing: CancellationError())
                case nil: break
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state in
                if let sleeper = state.sleepers.removeValue(forKey: id) { return Optional(sleeper) }
                state.cancelled.insert(id)
                return nil
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }
}

/// A UTC date from "YYYY-MM-DD HH:MM".
func utc(_ text: String) -> Date {
    let parts = text.split(whereSeparator: { "- :".contains($0) }).compactMap { Int($0) }
    var components = DateComponents()
    (components.year, components.month, components.day, components.hour, components.minute) =
        (parts[0], parts[1], parts[2], parts[3], parts[4])
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar.date(from: components)!
}

extension TriggerRuntime {
    /// The saved state document of `trigger` in `local.triggerState`.
    func savedState(_ trigger: String) async throws -> TriggerState? {
        try await ledger.loadStates()[trigger]
    }
}
