import BSON
import DocumentStore
import Foundation
import Switchyard

extension TestApp {
    /// Runs `trigger`'s function once on a synthetic `event`, as the trigger runtime would (as the system user,
    /// within the time limit, recorded in `invocations`), and returns when it finished. The trigger's `match`
    /// and `project` are not applied, and a failure is not retried: it is thrown.
    ///
    /// Writes the function makes fire triggers as usual; `awaitIdle()` waits for them.
    /// - Throws: `TestAppError` when there is no such trigger or it does not fire on events like `event`;
    ///   `FunctionCallError` when the function failed or timed out.
    public func fire(_ trigger: String, event: TestEvent) async throws {
        guard let definition = app.configuration.triggers.first(where: { $0.name == trigger }) else {
            let names = app.configuration.triggers.map { "'\($0.name)'" }.joined(separator: ", ")
            throw TestAppError("no trigger named '\(trigger)' (the app's triggers: \(names.isEmpty ? "none" : names))")
        }
        let (input, eventId) = try triggerInput(for: event, definition: definition)
        try await app.triggerHandler(
            TriggerInvocation(trigger: definition, input: input, eventId: eventId, attempt: 1))
    }

    /// Waits until every trigger has caught up with the writes made so far (and the writes their functions
    /// made, and so on), no function is running and no scheduled time up to now is pending.
    public func awaitIdle() async throws {
        try await app.awaitIdle()
    }

    /// Reports that `user` signed up, logged in or was deleted through `provider`, as the auth layer does:
    /// every matching authentication trigger runs (with retries), and `awaitIdle()` waits for them.
    /// - Returns: the names of the triggers the event went to.
    @discardableResult
    public func authenticate(
        _ operation: AuthEvent.OperationType, user: FunctionUser, provider: String = "local-userpass",
        time: Date = Date()
    ) async -> [String] {
        await app.triggers.fire(
            authEvent: AuthEvent(operationType: operation, providers: [provider], user: user, time: time))
    }

    private func triggerInput(for event: TestEvent, definition: TriggerDefinition) throws -> (TriggerInput, String) {
        let name = definition.name
        switch (event.payload, definition.kind) {
        case (.change(let document), .database(let trigger)):
            let change = try changeEvent(
                document, token: event.resumeToken ?? syntheticToken(), trigger: trigger, name: name)
            return (.database(change), change.id.data)
        case (.scheduled(let time), .scheduled):
            return (.scheduled(ScheduledEvent(triggerName: name, scheduledTime: time)), time.ISO8601Format())
        case (.authentication(let operation, let user, let provider, let time), .authentication(let trigger)):
            guard trigger.operation.rawValue == operation.rawValue.lowercased() else {
                throw TestAppError(
                    "trigger '\(name)' fires on \(trigger.operation.rawValue), not \(operation.rawValue.lowercased())")
            }
            guard trigger.providers.contains(where: { $0.rawValue == provider }) else {
                let providers = trigger.providers.sorted().map(\.rawValue).joined(separator: ", ")
                throw TestAppError("trigger '\(name)' fires for the providers \(providers), not '\(provider)'")
            }
            let event = AuthEvent(operationType: operation, providers: [provider], user: user, time: time)
            return (.authentication(event), ObjectId().hex)
        case (_, let kind):
            throw TestAppError("trigger '\(name)' is a \(kind.typeName) trigger; fire a \(kind.typeName) event at it")
        }
    }

    private func changeEvent(_ document: BSONDocument, token: ResumeToken, trigger: DatabaseTrigger, name: String)
        throws -> ChangeEvent
    {
        guard let typeName = document["operationType"]?.stringValue,
            let type = ChangeEvent.OperationType(rawValue: typeName)
        else {
            throw TestAppError("a change event for trigger '\(name)' needs an operationType (insert, update, …)")
        }
        if let operation = DatabaseOperation(rawValue: typeName.uppercased()), !trigger.operations.contains(operation) {
            let operations = trigger.operations.sorted().map(\.rawValue).joined(separator: ", ")
            throw TestAppError("trigger '\(name)' fires on \(operations), not \(operation.rawValue)")
        }
        var event: BSONDocument = ["_id": .document(token.document)]
        for (key, value) in document where key != "_id" { event.append(key, value) }
        if event["ns"] == nil {
            guard let database = trigger.scope.database, let collection = trigger.scope.collection else {
                throw TestAppError(
                    "trigger '\(name)' watches more than one collection: give the event an ns {db, coll}")
            }
            event.append("ns", ["db": .string(database), "coll": .string(collection)])
        }
        if event["wallTime"] == nil {
            event.append(
                "wallTime", .datetime(BSONDate(millisecondsSinceEpoch: Int64(Date().timeIntervalSince1970 * 1000))))
        }
        return ChangeEvent(document: event, id: token, operationType: type)
    }
}
