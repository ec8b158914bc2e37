import BSON
import DocumentStore
import Switchyard
import Testing

private func callable(_ arguments: [BSON], _ context: FunctionContext) async throws -> BSON { .null }
private func onChange(_ event: ChangeEvent, _ context: FunctionContext) async throws {}
private func onSchedule(_ event: ScheduledEvent, _ context: FunctionContext) async throws {}
private func onLogin(_ event: AuthEvent, _ context: FunctionContext) async throws {}
/// Neither async nor throwing: still registers, by its parameter types.
private func plainChange(_ event: ChangeEvent, _ context: FunctionContext) {}

@Suite struct FunctionRegistryTests {
    @Test func aGlobalFunctionReferencePicksItsKindByType() {
        var registry = FunctionRegistry()
        registry.register("callable", callable)
        registry.register("onChange", onChange)
        registry.register("onSchedule", onSchedule)
        registry.register("onLogin", onLogin)
        registry.register("plainChange", plainChange)
        #expect(registry["callable"]?.kind == .callable)
        #expect(registry["onChange"]?.kind == .database)
        #expect(registry["onSchedule"]?.kind == .scheduled)
        #expect(registry["onLogin"]?.kind == .authentication)
        #expect(registry["plainChange"]?.kind == .database)
        #expect(registry["missing"] == nil)
        #expect(registry.names == ["callable", "onChange", "onSchedule", "onLogin", "plainChange"])
    }

    @Test func closuresRegisterToo() async throws {
        var registry = FunctionRegistry()
        registry.register("double") { (arguments: [BSON], _: FunctionContext) in
            .int64((arguments.first?.int64Value ?? 0) * 2)
        }
        let app = try await SwitchyardApp.inMemory(registry)
        #expect(try await app.call(function: "double", arguments: [21], user: FunctionUser(id: "u")) == .int64(42))
        await app.stop()
    }

    @Test func triggersWhoseFunctionHasAnotherKindAreReported() throws {
        var registry = FunctionRegistry()
        registry.register("callable", callable)
        registry.register("onChange", onChange)
        registry.register("onLogin", onLogin)
        let definition = AppDefinition(triggers: [
            TriggerDefinition(
                name: "books", function: "callable",
                kind: .database(DatabaseTrigger(scope: .database("app"), operations: [.insert]))),
            TriggerDefinition(
                name: "nightly", function: "onChange",
                kind: .scheduled(ScheduledTrigger(schedule: try CronSchedule("0 3 * * *")))),
            TriggerDefinition(
                name: "login", function: "onLogin",
                kind: .authentication(AuthenticationTrigger(operation: .login, providers: [.anonymous]))),
            TriggerDefinition(
                name: "orders", function: "onChange",
                kind: .database(DatabaseTrigger(scope: .database("app"), operations: [.insert])),
                onSuspend: "onLogin"),
        ])
        #expect(
            registry.check(definition, file: "app/triggers.yaml").map(\.description) == [
                "app/triggers.yaml: trigger 'books' is a database trigger but function 'callable' is callable (a database trigger's function is (ChangeEvent, FunctionContext) async throws)",
                "app/triggers.yaml: trigger 'nightly' is a scheduled trigger but function 'onChange' is a database trigger function (a scheduled trigger's function is (ScheduledEvent, FunctionContext) async throws)",
                "app/triggers.yaml: trigger 'orders' calls 'onLogin' when it suspends, but 'onLogin' is an authentication trigger function (an onSuspend function is ([BSON], FunctionContext) async throws -> BSON, given the suspension)",
            ])
    }
}
