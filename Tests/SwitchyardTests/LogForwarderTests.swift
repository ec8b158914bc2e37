import BSON
import Switchyard
import Testing

/// Reading `logForwarders:` from `triggers.yaml`, with every problem located.
@Suite struct LogForwarderTests {
    static func errors(_ text: String, registered: Set<String>? = nil) -> [String] {
        do {
            _ = try AppDefinition.parse(text, file: "triggers.yaml", registeredFunctions: registered)
            return []
        } catch {
            return error.description.split(separator: "\n").map(String.init)
        }
    }

    @Test func readsEveryFieldAndWritesItBack() throws {
        let text = """
            logForwarders:
              - name: auditLog
                logTypes: [function, trigger, trigger_error_handler]
                logStatuses: [error]
                policy: batch
                action: {collection: logs.audit}
              - name: shipLogs
                logTypes: [endpoint, sync]
                logStatuses: [error, success]
                action:
                  function: shipLogs
                disabled: true
            """
        let definition = try AppDefinition.parse(text, registeredFunctions: ["shipLogs"])
        #expect(
            definition.logForwarders == [
                LogForwarder(
                    name: "auditLog", logTypes: [.function, .trigger, .triggerErrorHandler], logStatuses: [.error],
                    policy: .batch, action: .collection(database: "logs", collection: "audit")),
                LogForwarder(
                    name: "shipLogs", logTypes: [.endpoint, .sync], logStatuses: [.error, .success], policy: .single,
                    action: .function("shipLogs"), disabled: true),
            ])
        #expect(try AppDefinition.parse(try definition.yamlText()) == definition)
    }

    @Test func badForwardersAreLocatedWithSuggestions() {
        let errors = Self.errors(
            """
            logForwarders:
              - name: audit
                logTypes: [functon, trigger]
                logStatuses: [eror]
                policy: batched
                action: {collection: audit}
                dissabled: true
              - name: audit
                logTypes: [function]
                logStatuses: [success]
                action: {function: shipLog, collection: logs.audit}
              - name: ship
                logTypes: []
                action: {function: shipLog}
            """, registered: ["shipLogs"])
        #expect(
            errors == [
                "triggers.yaml:3:16: unknown entry 'functon' in 'logTypes' (did you mean 'function'?) (expected auth, endpoint, function, graphql, push, schema, service, sync, trigger, trigger_error_handler)",
                "triggers.yaml:4:19: unknown entry 'eror' in 'logStatuses' (did you mean 'error'?) (expected error, success)",
                "triggers.yaml:5:13: unknown policy 'batched' (did you mean 'batch'?) (expected single or batch)",
                "triggers.yaml:6:26: 'collection' must be '<database>.<collection>', found 'audit'",
                "triggers.yaml:7:5: unknown key 'dissabled' (did you mean 'disabled'?)",
                "triggers.yaml:11:33: 'action' in log forwarder 'audit' takes one of 'collection: <database>.<collection>' or 'function: <name>'",
                "triggers.yaml:12:5: missing required key 'logStatuses' in log forwarder 'ship' (for example logStatuses: [error, success])",
                "triggers.yaml:13:15: 'logTypes' must name at least one of auth, endpoint, function, graphql, push, schema, service, sync, trigger, trigger_error_handler",
                "triggers.yaml:14:24: unknown function 'shipLog' (did you mean 'shipLogs'? registered: shipLogs)",
            ])
    }

    @Test func aSecondForwarderWithTheSameNameIsAnError() {
        let errors = Self.errors(
            """
            logForwarders:
              - {name: audit, logTypes: [function], logStatuses: [error], action: {collection: logs.a}}
              - {name: audit, logTypes: [trigger], logStatuses: [error], action: {collection: logs.b}}
            """)
        #expect(
            errors == [
                "triggers.yaml:3:12: duplicate log forwarder name 'audit'",
                "triggers.yaml:2:12: note: 'audit' is first defined here",
            ])
    }

    @Test func aForwarderFunctionMustBeCallable() {
        var registry = FunctionRegistry()
        registry.register("onChange") { (_: ChangeEvent, _: FunctionContext) in }
        let definition = AppDefinition(
            logForwarders: [
                LogForwarder(name: "ship", logTypes: [.function], logStatuses: [.error], action: .function("onChange"))
            ])
        #expect(
            registry.check(definition).map(\.description) == [
                "triggers.yaml: log forwarder 'ship' calls 'onChange', but 'onChange' is a database trigger function (a log forwarder's function is ([BSON], FunctionContext) async throws -> BSON, given the array of records)"
            ])
    }
}
