import DocumentStore
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
    /// Opens a store whose files hold less than was committed, going on with what is left (`--accept-data-loss`).
    var acceptingDataLoss = false

    init(_ arguments: Arguments, usage: String) throws(UsageError) {
        directory = try Self.configurationDirectory(arguments.value("--config") ?? ".", usage: usage)
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

    /// `--config` names the app's directory, or its `triggers.yaml` (then the directory holding it).
    private static func configurationDirectory(_ given: String, usage: String) throws(UsageError) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: given, isDirectory: &isDirectory), !isDirectory.boolValue else {
            return given
        }
        let file = URL(fileURLWithPath: given)
        guard file.lastPathComponent == AppConfiguration.triggersFile else {
            throw UsageError(
                "--config takes the app's directory or its \(AppConfiguration.triggersFile), not the file '\(given)'",
                usage: usage)
        }
        let parent = (given as NSString).deletingLastPathComponent
        return parent.isEmpty ? "." : parent
    }

    /// The arguments of a command that takes nothing but `options` (`names` or `dataNames`).
    init(only arguments: [String], options: [String], usage: String) throws(UsageError) {
        try self.init(
            Arguments(arguments, options: options, flags: [], takesPositionals: false, usage: usage), usage: usage)
    }

    /// Loads and validates the configuration against the app's functions (those linked into this executable), printing every problem as `file:line:col: message`.
    func load() -> AppConfiguration? {
        do throws(CommandFailure) {
            return try configuration()
        } catch {
            Output.error(error.message)
            return nil
        }
    }

    /// The configuration, validated as `load()` does; its problems are a failure with status 2. Writes nothing,
    /// so a command checks everything it can with it before it opens the app.
    func configuration() throws(CommandFailure) -> AppConfiguration {
        do {
            return try CommandLineTool.registry.loadConfiguration(directory: directory, environment: environment)
        } catch {
            throw CommandFailure(error.description, status: 2)
        }
    }

    /// Opens the app to run its functions, holding the data directory's lock until the app is released. The
    /// data directory is created only here, once the configuration has loaded.
    func openApp(_ configuration: AppConfiguration? = nil) async throws(CommandFailure) -> OpenApp {
        let loaded: AppConfiguration
        if let configuration { loaded = configuration } else { loaded = try self.configuration() }
        let claim: DataDirectoryClaim
        do {
            claim = try DataDirectoryClaim.take(dataDirectory)
        } catch {
            throw CommandFailure(error.description, status: 1)
        }
        do {
            let app = try await SwitchyardApp.open(
                configuration: loaded, registry: CommandLineTool.registry,
                store: loaded.store(dataDirectory: dataDirectory, acceptingDataLoss: acceptingDataLoss))
            return OpenApp(app: app, claim: claim)
        } catch {
            claim.discard()
            throw CommandFailure("cannot open the app: \(error)", status: 1)
        }
    }

    /// Opens the app's store for reading its logs, without the lock (reading never changes the change log);
    /// nil when the app has never stored anything there.
    func openStoreForReading() async throws(CommandFailure) -> DocumentStore? {
        let configuration = try store()
        if case .sqlite = configuration.engine,
            !FileManager.default.fileExists(atPath: "\(dataDirectory)/store.sqlite")
        {
            return nil
        }
        do {
            return try await DocumentStore.open(configuration)
        } catch {
            throw CommandFailure(
                "cannot open the store \(Self.describe(configuration, in: dataDirectory)): \(error)", status: 1)
        }
    }

    /// Where the app's data lives: `given` (a command's `--store`), else the database `triggers.yaml`'s `store:`
    /// names, else SQLite in the data directory. The configuration is read only when there is one, so commands on
    /// a bare data directory go on working.
    func store(_ given: StoreConfiguration? = nil) throws(CommandFailure) -> StoreConfiguration {
        if let given { return given }
        let triggers =
            directory == "." ? AppConfiguration.triggersFile : "\(directory)/\(AppConfiguration.triggersFile)"
        guard FileManager.default.fileExists(atPath: triggers) else {
            return .sqlite(directory: dataDirectory, acceptingDataLoss: acceptingDataLoss)
        }
        return try configuration().store(dataDirectory: dataDirectory, acceptingDataLoss: acceptingDataLoss)
    }

    /// A store as errors name it: its database's URL without the password, or the data directory.
    static func describe(_ store: StoreConfiguration, in dataDirectory: String) -> String {
        if case .postgresql(let location) = store.engine { return "at \(location)" }
        return "in \(dataDirectory)"
    }
}
