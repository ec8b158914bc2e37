import Foundation
import Functions
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

    /// Loads and validates the configuration against the app's functions (the `Functions` target linked into
    /// this executable), printing every problem as `file:line:col: message`.
    func load() -> AppConfiguration? {
        do {
            return try functionRegistry.loadConfiguration(directory: directory, environment: environment)
        } catch {
            Output.error(error.description)
            return nil
        }
    }
}
