import BSON
import Functions
import Switchyard
import Testing

/// The repository's `triggers.yaml` and `values.json` against the functions in `functions/`.
@Suite struct ConfigurationTests {
    @Test func theRepositoryConfigurationValidatesWithTheRealRegistry() throws {
        let configuration = try AppConfiguration.load(
            directory: BooksAppFixture.directory, environment: .development,
            registeredFunctions: functionRegistry.names, variables: [:])
        #expect(functionRegistry.check(configuration.definition).isEmpty)
        for trigger in configuration.triggers {
            #expect(functionRegistry[trigger.function]?.kind == FunctionKind(trigger: trigger.kind), "\(trigger.name)")
        }
        #expect(
            Set(configuration.triggers.map(\.name)) == [
                "sendBooksTopic", "queueFavoriteBookUpdate", "sendQueuedNotification", "retryUnprocessedNotifications",
                "createUserData", "ensureUserDataOnLogin",
            ])
        #expect(functionRegistry["updateFCMUserToken"]?.kind == .callable)
    }

    @Test func everyValueTheFunctionsReadIsConfigured() throws {
        let configuration = try AppConfiguration.load(
            directory: BooksAppFixture.directory, registeredFunctions: functionRegistry.names, variables: [:])
        for name in [
            "booksTopic", "retryAfterMinutes", "maxNotificationAttempts", "userDataDatabase", "userDataCollection",
        ] {
            #expect(configuration.values.names.contains(name), "\(name)")
        }
    }
}
