import Foundation
import Switchyard

/// The options every command that reads an app shares: where its configuration is and which environment's
/// values apply.
struct AppOptions {
    static let names = ["--config", "--environment"]
    static let usage = """
          --config DIR          The app's directory, holding triggers.yaml (default: the current directory)
          --environment NAME    development, testing, qa or production
                                (default: $SWITCHYARD_ENV, else development)
        """

    var directory: String
    var environment: AppEnvironment

    init(_ arguments: Arguments, usage: String) throws(UsageError) {
        directory = arguments.value("--config") ?? "."
        do {
            environment = try AppEnvironment.select(
                flag: arguments.value("--environment"), variables: ProcessInfo.processInfo.environment)
        } catch {
            throw UsageError(error.description, usage: usage)
        }
    }

    /// The functions the app implements, for checking the names triggers call; nil until this executable
    /// links the app's function registry, which skips that check.
    var registeredFunctions: Set<String>? { nil }

    /// Loads and validates the configuration, printing every problem as `file:line:col: message`.
    func load() -> AppConfiguration? {
        do {
            return try AppConfiguration.load(
                directory: directory, environment: environment, registeredFunctions: registeredFunctions)
        } catch {
            Output.error(error.description)
            return nil
        }
    }
}
