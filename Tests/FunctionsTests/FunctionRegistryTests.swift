import BSON
import Functions
import Switchyard
import Testing

/// The generated registry of the `functions/` directory.
@Suite struct FunctionRegistryTests {
    @Test func registersEveryFunctionFileUnderItsName() {
        #expect(functionRegistry.names.contains("ping"))
        #expect(functionRegistry["ping"]?.kind == .callable)
    }

    @Test func registeredFunctionsRunThroughAnApp() async throws {
        let configuration = AppConfiguration(
            definition: AppDefinition(), environment: .development, values: AppValues())
        let app = try await SwitchyardApp.open(configuration: configuration, registry: functionRegistry, store: .memory)
        let result = try await app.call(function: "ping", arguments: ["hello", 2], user: FunctionUser(id: "u1"))
        #expect(result == ["hello", 2])
        await app.stop()
    }
}
