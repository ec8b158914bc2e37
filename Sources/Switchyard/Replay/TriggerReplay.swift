import BSON
import DocumentStore
import Foundation
import Messaging
import Synchronization

/// Runs a recording's events again: the snapshot goes into a scratch in-memory copy of the app (its triggers
/// stopped, so only the replayed function runs), the window's changes are made again in order, and after each
/// change the trigger took, `function` (by default the trigger's) runs on the event as a first attempt, with a
/// context like the real one (its sends go to an outbox that delivers nothing). Each run is compared with the
/// first attempt recorded then: outcome, error, the messages sent and the changes made (where the recording has
/// them: `ReplayReport.Run.writes`). The replayed runs' own writes stay in the scratch copy, so later
/// events see them as well as the recorded changes. What a function reaches beyond the app (its HTTP calls) is
/// reached for real.
package struct TriggerReplay: Sendable {
    /// Why a recording cannot be replayed against this app: a command exits with 2.
    package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        package var description: String

        init(_ description: String) {
            self.description = description
        }
    }

    let configuration: AppConfiguration
    let registry: FunctionRegistry

    package init(configuration: AppConfiguration, registry: FunctionRegistry) {
        self.configuration = configuration
        self.registry = registry
    }

    /// The trigger `recording` was made of, as this app configures it, calling `function` (default its own).
    package func definition(for recording: TriggerRecording, function: String? = nil) throws(Failure)
        -> TriggerDefinition
    {
        let triggers = configuration.triggers
        guard var definition = triggers.first(where: { $0.name == recording.trigger }) else {
            let hint = ClosestMatch.suggestion(for: recording.trigger, among: triggers.map(\.name))
            throw Failure(
                "the recording is of trigger '\(recording.trigger)', which this app does not have"
                    + (hint.map { " (did you mean '\($0)'?)" } ?? ""))
        }
        guard case .database = definition.kind else {
            throw Failure("'\(definition.name)' is a \(definition.kind.typeName) trigger now, not a database trigger")
        }
        let name = function ?? (definition.function.isEmpty ? recording.function : definition.function)
        guard let registered = registry[name] else {
            let hint = ClosestMatch.suggestion(for: name, among: registry.names)
            throw Failure("no function named '\(name)' is registered" + (hint.map { " (did you mean '\($0)'?)" } ?? ""))
        }
        guard registered.kind == .database else {
            throw Failure(
                "function '\(name)' is \(registered.kind.phrase): a database trigger's function takes a change event")
        }
        definition.function = name
        // Only the function runs again: no webhook, no error handler, no suspension alert.
        definition.webhook = nil
        definition.onFailure = nil
        definition.onSuspend = nil
        return definition
    }

    /// Replays every event of `recording` through `function` (default: the trigger's function).
    package func run(_ recording: TriggerRecording, function: String? = nil) async throws -> ReplayReport {
        let definition = try definition(for: recording, function: function)
        let sent = SentMessages()
        let project = configuration.definition.messaging.emulator.project ?? configuration.definition.appId
        let outbox = OutboxMessaging(
            project: project ?? "switchyard-local", sink: { entry in sent.append(entry.request) })
        // The replayed runs' records are the replay's own: no log forwarder hands them on.
        var scratch = configuration
        scratch.definition.logForwarders = []
        let app = try await SwitchyardApp.open(
            configuration: scratch, registry: registry, store: .memory,
            options: SwitchyardApp.Options(storage: .memory, messaging: outbox, variables: [:]))
        do {
            let report = try await replay(recording, definition: definition, in: app, sent: sent)
            await app.stop()
            return report
        } catch {
            await app.stop()
            throw error
        }
    }

    private func replay(
        _ recording: TriggerRecording, definition: TriggerDefinition, in app: SwitchyardApp, sent: SentMessages
    ) async throws -> ReplayReport {
        let store = app.store
        for collection in recording.snapshot where !collection.documents.isEmpty {
            let target = store.database(collection.namespace.database).collection(collection.namespace.collection)
            for start in stride(from: 0, to: collection.documents.count, by: 1_000) {
                try await target.insertMany(
                    Array(collection.documents[start..<min(collection.documents.count, start + 1_000)]))
            }
        }
        var records = app.invocations.follow().makeAsyncIterator()
        let handler = app.triggerHandler
        var comparisons: [ReplayReport.Comparison] = []
        comparisons.reserveCapacity(recording.eventCount)
        for change in recording.changes {
            try await store.reapply(change.change)
            guard let event = change.delivered else { continue }
            let eventId = event.id.data
            try? await handler(
                TriggerInvocation(trigger: definition, input: .database(event), eventId: eventId, attempt: 1))
            var record: InvocationRecord?
            while let next = await records.next() {
                if next.trigger == definition.name && next.eventId == eventId && next.function == definition.function {
                    record = next
                    break
                }
            }
            guard let record else { break }  // the app stopped
            // The run's writes are the entries tagged with its invocation id: one read, however long the log.
            let writes = try await store.changes(origins: [record.id.hex])[record.id.hex] ?? []
            let then = change.runs.first.map { run in
                ReplayReport.Run(
                    outcome: run.outcome, error: run.error, logs: run.logs, messages: run.messages, writes: run.writes)
            }
            comparisons.append(
                ReplayReport.Comparison(
                    eventId: eventId, operationType: event.operationType, namespace: change.change.namespace,
                    documentKey: change.change.documentKey, then: then, attemptsThen: change.runs.count,
                    now: ReplayReport.Run(
                        outcome: record.outcome, error: record.error, logs: record.logs, messages: sent.take(),
                        writes: writes.map(\.runWrite))))
        }
        return ReplayReport(
            trigger: definition.name, function: definition.function, events: comparisons, notes: recording.notes)
    }
}

/// The send requests the replay's outbox accepted since the last `take()`: the replayed run's messages (runs go
/// one at a time).
private final class SentMessages: Sendable {
    private let requests = Mutex<[BSONDocument]>([])

    func append(_ request: BSONDocument) {
        requests.withLock { $0.append(request) }
    }

    func take() -> [BSONDocument] {
        requests.withLock { requests in
            defer { requests.removeAll(keepingCapacity: true) }
            return requests
        }
    }
}
