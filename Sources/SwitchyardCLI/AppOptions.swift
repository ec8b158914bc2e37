import DocumentStore
import Foundation
import Messaging
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

    /// For commands that read or write the app's data: `names` and `--data-dir`.
    static let dataNames = names + ["--data-dir"]
    static let dataUsage =
        usage + "\n"
            + """
              --data-dir DIR        The app's data (store, invocation log, outbox) (default: DIR/.switchyard
                                    under --config)
            """

    var directory: String
    var environment: AppEnvironment
    /// Where the app keeps its store: `--data-dir`, else `.switchyard` under the configuration directory.
    var dataDirectory: String

    init(_ arguments: Arguments, usage: String) throws(UsageError) {
        directory = arguments.value("--config") ?? "."
        let trimmed = directory.hasSuffix("/") && directory.count > 1 ? String(directory.dropLast()) : directory
        dataDirectory =
            arguments.value("--data-dir")
            ?? (trimmed == "." ? SwitchyardApp.dataDirectory : "\(trimmed)/\(SwitchyardApp.dataDirectory)")
        do {
            environment = try AppEnvironment.select(
                flag: arguments.value("--environment"), variables: ProcessInfo.processInfo.environment)
        } catch {
            throw UsageError(error.description, usage: usage)
        }
    }

    /// The arguments of a command that takes nothing but `options` (`names` or `dataNames`).
    init(only arguments: [String], options: [String], usage: String) throws(UsageError) {
        try self.init(
            Arguments(arguments, options: options, flags: [], takesPositionals: false, usage: usage), usage: usage)
    }

    /// Loads and validates the configuration against the app's functions (those linked into this executable), printing every problem as `file:line:col: message`.
    func load() -> AppConfiguration? {
        do {
            return try CommandLineTool.registry.loadConfiguration(directory: directory, environment: environment)
        } catch {
            Output.error(error.description)
            return nil
        }
    }

    /// Opens the app to run its functions, holding the data directory's lock until the app is released.
    /// - Parameter messaging: what functions send through; nil: the development outbox.
    func openApp(messaging: (any PushMessaging)? = nil) async throws(CommandFailure) -> OpenApp {
        let lock: DataDirectoryLock
        do {
            lock = try DataDirectoryLock.acquire(dataDirectory)
        } catch {
            throw CommandFailure(error.description, status: 1)
        }
        do {
            let app = try await SwitchyardApp.open(
                directory: directory, environment: environment, registry: CommandLineTool.registry,
                options: SwitchyardApp.Options(storage: .directory(dataDirectory), messaging: messaging))
            return OpenApp(app: app, lock: lock)
        } catch let errors as ConfigurationErrors {
            throw CommandFailure(errors.description, status: 2)
        } catch {
            throw CommandFailure("cannot open the app: \(error)", status: 1)
        }
    }

    /// Opens the app's store for reading its logs, without the lock (reading never changes the change log);
    /// nil when the app has never stored anything there.
    func openStoreForReading() async throws(CommandFailure) -> DocumentStore? {
        guard FileManager.default.fileExists(atPath: "\(dataDirectory)/store.sqlite") else { return nil }
        do {
            return try await DocumentStore.open(.sqlite(directory: dataDirectory))
        } catch {
            throw CommandFailure("cannot open the store in \(dataDirectory): \(error)", status: 1)
        }
    }
}
