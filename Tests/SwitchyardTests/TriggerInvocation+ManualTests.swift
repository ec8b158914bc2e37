import BSON
import DocumentStore
import Foundation
import Testing

@testable import Switchyard

@Suite struct TriggerInvocationManualTests {
    let onBook = TriggerDefinition(
        name: "onBook", function: "onBook",
        kind: .database(
            DatabaseTrigger(scope: .collection(database: "product", collection: "book"), operations: [.insert])))
    let nightly = TriggerDefinition(
        name: "nightly", function: "cleanUp",
        kind: .scheduled(ScheduledTrigger(schedule: try! CronSchedule("0 2 * * *"))))
    let welcome = TriggerDefinition(
        name: "welcome", function: "createUserData",
        kind: .authentication(AuthenticationTrigger(operation: .create, providers: [.emailPassword, .anonymous])))

    @Test func aGeneratedEventRunsTheTriggersFunctionWithItsLogLines() async throws {
        let event = try await SyntheticEvent(
            namespace: Namespace(database: "product", collection: "book"), change: .insert(["_id": 1, "title": "Dune"])
        ).generate()
        let invocation = try TriggerInvocation.manual(onBook, event: event.raw)
        #expect(invocation.eventId == event.id.data)
        #expect(invocation.attempt == 1)
        #expect(invocation.operationTypeNote == nil)

        var registry = FunctionRegistry()
        registry.register("onBook") { (event: ChangeEvent, context: FunctionContext) in
            context.log("got \(event.fullDocument?["title"]?.stringValue ?? "?")")
        }
        let configuration = AppConfiguration(
            definition: AppDefinition(triggers: [onBook]), environment: .development, values: AppValues())
        let app = try await SwitchyardApp.open(configuration: configuration, registry: registry, store: .memory)
        try await app.triggerHandler(invocation)
        let records = try await app.invocations.records(trigger: "onBook")
        await app.stop()
        #expect(records.map(\.logs) == [["got Dune"]])
        #expect(records.first?.eventId == event.id.data)
        let lines = try #require(records.first?.lines)
        #expect(lines.count == 2)
        #expect(lines[0].contains("  onBook → onBook  attempt 1  success  "))
        #expect(lines[0].hasSuffix(" ms  (event \(event.id.data))"))
        #expect(lines[1] == "  got Dune")
    }

    @Test func aDatabaseTriggerNeedsAChangeEvent() async throws {
        #expect(throws: TriggerInvocation.ManualEventError("'onBook' is a database trigger: it needs a change event")) {
            try TriggerInvocation.manual(onBook, event: nil)
        }
        #expect(throws: TriggerInvocation.ManualEventError("change event has no operationType string")) {
            try TriggerInvocation.manual(onBook, event: ["_id": ["_data": "0000000000000001"]])
        }
        let delete = try await SyntheticEvent(
            namespace: Namespace(database: "product", collection: "book"), change: .delete(["_id": 1])
        ).generate()
        let invocation = try TriggerInvocation.manual(onBook, event: delete.raw)
        #expect(invocation.operationTypeNote == "'onBook' fires on insert events, not delete")
    }

    @Test func scheduledAndAuthenticationEvents() throws {
        let now = Date(timeIntervalSince1970: 1_795_978_800)
        let scheduled = try TriggerInvocation.manual(nightly, event: nil, now: now)
        guard case .scheduled(let event) = scheduled.input else {
            Issue.record("expected a scheduled event")
            return
        }
        #expect(event == ScheduledEvent(triggerName: "nightly", scheduledTime: now))
        #expect(scheduled.eventId == "2026-11-29T19:00:00.000Z")
        let given = try TriggerInvocation.manual(
            nightly, event: ["scheduledTime": .datetime(BSONDate(millisecondsSinceEpoch: 0))])
        #expect(given.eventId == "1970-01-01T00:00:00.000Z")
        #expect(throws: TriggerInvocation.ManualEventError.self) {
            try TriggerInvocation.manual(nightly, event: ["scheduledTime": "tomorrow"])
        }

        #expect(
            throws: TriggerInvocation.ManualEventError("'welcome' is an authentication trigger: it needs the user's id")
        ) {
            try TriggerInvocation.manual(welcome, event: nil)
        }
        let auth = try TriggerInvocation.manual(welcome, event: nil, user: "u1", now: now)
        guard case .authentication(let authEvent) = auth.input else {
            Issue.record("expected an authentication event")
            return
        }
        #expect(authEvent.operationType == .create)
        #expect(authEvent.providers == ["anon-user", "local-userpass"])
        #expect(authEvent.user.id == "u1")
        #expect(authEvent.user.identities == [FunctionUser.Identity(id: "u1", providerType: "anon-user")])
    }
}
