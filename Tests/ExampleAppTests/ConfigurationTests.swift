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
                "onBookPushNotification", "favouriteUserBookUpdated", "onSentPushNotification",
                "retryUnprocessedNotifications", "userRegistered", "updateUser", "userDeleted",
            ])
        #expect(functionRegistry["updateFCMUserToken"]?.kind == .callable)
    }

    /// The tutorial's triggers run its functions, under the names of its export.
    @Test func theTriggersAndFunctionsHaveTheTutorialsNames() throws {
        let configuration = try AppConfiguration.load(
            directory: BooksAppFixture.directory, registeredFunctions: functionRegistry.names, variables: [:])
        let functions = Dictionary(uniqueKeysWithValues: configuration.triggers.map { ($0.name, $0.function) })
        #expect(functions["onBookPushNotification"] == "sentTopicNotification")
        #expect(functions["favouriteUserBookUpdated"] == "onBookUpdated")
        #expect(functions["onSentPushNotification"] == "sentPushNotification")
        #expect(functions["userRegistered"] == "createNewUser")
        #expect(functions["updateUser"] == "updateUser")
        #expect(functions["userDeleted"] == "deleteUserData")
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
