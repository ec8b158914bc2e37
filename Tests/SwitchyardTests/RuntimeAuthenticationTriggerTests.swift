import BSON
import DocumentStore
import Foundation
import Synchronization
import Testing

@testable import Switchyard

@Suite struct RuntimeAuthenticationTriggerTests {
    func authTrigger(
        _ name: String, _ operation: AuthenticationOperation, _ providers: Set<AuthenticationProvider>,
        disabled: Bool = false
    ) -> TriggerDefinition {
        TriggerDefinition(
            name: name, function: "onAuth", disabled: disabled,
            kind: .authentication(AuthenticationTrigger(operation: operation, providers: providers)))
    }

    func event(_ operation: AuthEvent.OperationType, _ providers: [String]) -> AuthEvent {
        AuthEvent(
            operationType: operation, providers: providers,
            user: FunctionUser(
                id: "u1", data: ["email": "a@example.com"], identities: [.init(id: "i1", providerType: providers[0])]),
            time: utc("2026-02-02 10:00"))
    }

    @Test func deliversToTriggersWhoseOperationAndProvidersMatch() async throws {
        try await withStore(.memory) { store, _ in
            let log = DeliveryLog()
            let runtime = TriggerRuntime(
                store: store,
                definitions: [
                    authTrigger("newAnonymous", .create, [.anonymous]),
                    authTrigger("anyLogin", .login, [.anonymous, .emailPassword]),
                    authTrigger("googleLogin", .login, [.google]),
                    authTrigger("disabledLogin", .login, [.emailPassword], disabled: true),
                ]
            ) { log.record($0) }
            try await runtime.start()
            #expect(await runtime.fire(authEvent: event(.login, ["local-userpass"])) == ["anyLogin"])
            #expect(await runtime.fire(authEvent: event(.create, ["anon-user"])) == ["newAnonymous"])
            #expect(await runtime.fire(authEvent: event(.delete, ["anon-user"])) == [])
            #expect(await runtime.fire(authEvent: event(.login, ["oauth2-apple"])) == [])
            try await runtime.awaitIdle()
            #expect(log.of("anyLogin").map(\.input) == [.authentication(event(.login, ["local-userpass"]))])
            #expect(log.of("newAnonymous").count == 1)
            #expect(log.of("googleLogin").isEmpty && log.of("disabledLogin").isEmpty)
            #expect(try await runtime.status(of: "anyLogin").processed == 1)
            await runtime.stop()
            #expect(await runtime.fire(authEvent: event(.login, ["local-userpass"])) == [])
        }
    }

    /// The creation trigger's function is slow; the login trigger's, fired right after for the same user, must
    /// still run after it (a login handler finds what the creation handler made).
    @Test func aUsersEventsReachTheTriggersInTheOrderTheyHappened() async throws {
        try await withStore(.memory) { store, _ in
            let log = DeliveryLog()
            let runtime = TriggerRuntime(
                store: store,
                definitions: [
                    authTrigger("created", .create, [.anonymous]), authTrigger("loggedIn", .login, [.anonymous]),
                ]
            ) { invocation in
                if invocation.trigger.name == "created" { try await Task.sleep(for: .milliseconds(50)) }
                log.record(invocation)
            }
            try await runtime.start()
            for _ in 0..<3 {
                await runtime.fire(authEvent: event(.create, ["anon-user"]))
                await runtime.fire(authEvent: event(.login, ["anon-user"]))
                await runtime.fire(authEvent: event(.login, ["anon-user"]))
            }
            try await runtime.awaitIdle()
            let order = log.all.map(\.trigger.name)
            #expect(order == Array(repeating: ["created", "loggedIn", "loggedIn"], count: 3).flatMap { $0 })
            await runtime.stop()
        }
    }

    @Test func failuresAreRetriedThenDeadLetteredWithTheUser() async throws {
        try await withStore(.memory) { store, _ in
            let log = DeliveryLog()
            let runtime = TriggerRuntime(
                store: store,
                definitions: [
                    authTrigger("flaky", .create, [.emailPassword]), authTrigger("broken", .create, [.emailPassword]),
                ],
                configuration: TriggerRuntimeConfiguration(retry: .quick(2))
            ) { invocation in
                log.record(invocation)
                if invocation.trigger.name == "broken" || invocation.attempt == 1 { throw InjectedFailure() }
            }
            try await runtime.start()
            let created = event(.create, ["local-userpass"])
            await runtime.fire(authEvent: created)
            try await runtime.awaitIdle()
            #expect(log.of("flaky").map(\.attempt) == [1, 2])
            #expect(Set(log.all.map(\.eventId)).count == 1)
            let letter = try #require(try await runtime.deadLetters().first)
            #expect(letter.trigger == "broken" && letter.attempts == 2)
            // Read back from the store: the user survives the round trip.
            #expect(letter.input == .authentication(created))
            await runtime.stop()
        }
    }
}
