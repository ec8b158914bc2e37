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
        let (input, eventId) = try await triggerInput(for: event, definition: definition)
        try await app.triggerHandler(
            TriggerInvocation(trigger: definition, input: input, eventId: eventId, attempt: 1))
    }

    /// Waits until every trigger has caught up with the writes made so far (and the writes their functions
    /// made, and so on), no function is running and no scheduled time or retry up to the clock's now is pending.
    /// A retry whose backoff ends later waits for `clock` to be moved past it.
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

    private func triggerInput(for event: TestEvent, definition: TriggerDefinition) async throws -> (
        TriggerInput, String
    ) {
        let name = definition.name
        switch (event.payload, definition.kind) {
        case (.change(let change, let preImage), .database(let trigger)):
            try check(change.operationType, firesAt: trigger, name: name)
            let namespace = try self.namespace(of: trigger, name: name)
            let generated: ChangeEvent
            do {
                generated = try await SyntheticEvent(
                    namespace: namespace, change: change, fullDocument: trigger.fullDocument,
                    fullDocumentBeforeChange: preImage && trigger.fullDocumentBeforeChange
                ).generate()
            } catch {
                throw TestAppError(
                    "cannot make the \(change.operationType.rawValue) event for trigger '\(name)': \(error)")
            }
            let change = try changeEvent(
                generated.raw, token: event.resumeToken ?? syntheticToken(), trigger: trigger, name: name)
            return (.database(change), change.id.data)
        case (.raw(let document), .database(let trigger)):
            let change = try changeEvent(
                document, token: event.resumeToken ?? syntheticToken(), trigger: trigger, name: name)
            try check(change.operationType, firesAt: trigger, name: name)
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

    private func check(_ type: ChangeEvent.OperationType, firesAt trigger: DatabaseTrigger, name: String) throws {
        let operation = DatabaseOperation(changeEventType: type)
        guard let operation, trigger.operations.contains(operation) else {
            let operations = trigger.operations.sorted().map(\.rawValue).joined(separator: ", ")
            throw TestAppError(
                "trigger '\(name)' fires on \(operations), not \(operation?.rawValue ?? type.rawValue.uppercased())")
        }
    }

    private func namespace(of trigger: DatabaseTrigger, name: String) throws -> Namespace {
        guard let database = trigger.scope.database, let collection = trigger.scope.collection else {
            throw TestAppError(
                "trigger '\(name)' watches more than one collection: fire a .change event that names its ns {db, coll}")
        }
        return Namespace(database: database, collection: collection)
    }

    /// The event document with `token` as its `_id`, and `ns` and `wallTime` filled in when missing.
    private func changeEvent(_ document: BSONDocument, token: ResumeToken, trigger: DatabaseTrigger, name: String)
        throws -> ChangeEvent
    {
        var event: BSONDocument = ["_id": .document(token.document)]
        for (key, value) in document where key != "_id" { event.append(key, value) }
        if event["ns"] == nil, let database = trigger.scope.database {
            var ns: BSONDocument = ["db": .string(database)]
            if let collection = trigger.scope.collection { ns.append("coll", .string(collection)) }
            event.append("ns", .document(ns))
        }
        if event["wallTime"] == nil {
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            event.append("wallTime", .datetime(BSONDate(millisecondsSinceEpoch: now)))
        }
        do {
            return try ChangeEvent(raw: event)
        } catch {
            throw TestAppError("not a change event for trigger '\(name)': \(error.message)")
        }
    }
}
