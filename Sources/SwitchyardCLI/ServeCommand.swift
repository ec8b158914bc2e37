import DocumentStore
import Foundation
import Messaging
import MongoWire
import Switchyard
import SwitchyardServer

/// `switchyard serve`: runs the app's triggers and serves it over HTTP until Ctrl-C, through `ServeLifecycle`,
/// printing what it tells.
struct ServeCommand: Command {
    static let name = "serve"
    static let summary = "Serve the app: client API, FCM emulator, admin API and dashboard, with its triggers"
    static let usage = """
        USAGE: switchyard serve [options]

        Loads and validates the app, starts its triggers and serves it on one HTTP server: the client API
        the Realm SDKs speak (/api/client/v2.0), the FCM emulator endpoint (/v1/projects/...), the admin API
        (/admin/v1) and the dashboard (/). Runs until Ctrl-C (or SIGTERM), when requests in flight and
        running functions finish and the triggers' state is saved. SIGHUP reloads triggers.yaml and
        values.json without a restart (a configuration with problems is reported and not applied).

        Functions' context.services.messaging is, with --push emulator (the default), Switchyard's real FCM
        client speaking to this server's own FCM emulator endpoint (OAuth2, HTTP, retries), so what they
        send shows in 'switchyard outbox' and on the dashboard. --push live delivers for real: to Google's
        FCM with a service account from --service-account FILE or the value named by
        messaging.fcm.serviceAccount in triggers.yaml (default fcmServiceAccount, linked to a secret), or
        to APNs when messaging.transport is apns (messaging.apns: teamId, keyId, key, topic).

        The admin API and the dashboard answer only this machine. The admin API asks for
        'Authorization: Bearer TOKEN' with the token printed at start (new at every start) and written to
        DATA_DIR/admin.token, readable by you only; the dashboard page carries it.

        Configuration problems print as FILE:LINE:COLUMN: message, exit status 2 (so do missing or unusable
        --push live credentials); a failure to start (the port is taken, the data directory is in use, its
        store holds less than was committed) exits with status 1.

        OPTIONS:
          --host HOST           The address to listen on (default: 127.0.0.1)
          --port N              The port (default: 9090; 0 picks a free one)
          --mongodb-port N      The MongoDB wire protocol's port (default: 27017, left out with a warning
                                when taken; a port given here that is taken fails the start; 0 turns it off)
          --mongodb-host HOST   The address the MongoDB wire protocol listens on (default: 127.0.0.1)
          --mongodb-tls-certificate FILE, --mongodb-tls-key FILE
                                Serve the MongoDB wire protocol over TLS only (1.2 or later) with this PEM
                                certificate chain and private key; drivers connect with tls=true
          --app-id ID           The app id clients use (default: the configuration's appId, else
                                switchyard-app)
          --import DIR          Before serving, import DIR as 'switchyard data import' does (without
                                firing triggers)
          --export-on-exit DIR  On Ctrl-C, after the triggers and the server stop, export the data to DIR as
                                'switchyard data export' does
          --watch               Reload on save: a change to triggers.yaml, values.json, environments/ or
                                data_sources/ is applied without a restart; a change under functions/ rebuilds
                                (see --build-command) and restarts the server on the same port and data, the
                                old one serving until the build succeeds. Build errors print here and show
                                on the dashboard.
          --build-command CMD   What --watch runs to rebuild (default: swift build of this executable's
                                product in the package holding --config)
          --push MODE           emulator (default): send through this server's FCM emulator; live: deliver
                                through Google's FCM or APNs (needs credentials, see above)
          --service-account FILE
                                With --push live: the FCM service account's JSON file (instead of the
                                configured value)
          --query-time-limit SECONDS
                                The time budget of a client's mongodb-atlas read (find, count,
                                aggregate) that sends no maxTimeMS (default: 30); past it the read fails
                                with MaxTimeMSExpired
          --store URL           Keep the app's data in a PostgreSQL database (postgresql://USER:PASSWORD@HOST:PORT/DB,
                                tables in its schema 'switchyard') instead of DATA_DIR/store.sqlite; the
                                password is never printed. Commits are as durable as the server's
                                synchronous_commit
          --node-name NAME      This server's name among those sharing the --store database (default:
                                HOST:PID): triggers show the node that runs them
          --accept-data-loss    Start even when the store's files hold less than was committed (its
                                write-ahead log or database file deleted, truncated or damaged), going on
                                with what is left; without it such a store refuses to start
          --log-format FORMAT   text (default): each function run as 'switchyard logs' prints it; json: one
                                JSON object per line (time, level, trigger, function, eventId, attempt,
                                userId, durationMs, outcome, error, logs) for log collectors
        \(AppOptions.dataUsage)
          -h, --help            Show this help
        """

    /// Set by `serve --watch` for the server it runs: the supervisor's pid. The server stops when that process
    /// is gone (killed), so it never holds the port and data directory as an orphan.
    static let supervisorVariable = "SWITCHYARD_WATCH_SUPERVISOR"

    var app: AppOptions
    var host: String
    var port: UInt16
    /// Nil when `--mongodb-port 0` turns the wire protocol off.
    var mongoDB: ServeLifecycle.MongoDBListener?
    var appId: String?
    var logFormat: LogFormat
    var push: PushMode
    var serviceAccountFile: String?
    var importDirectory: String?
    var exportDirectory: String?
    var queryTimeLimit: Duration
    /// `--store`: the store when not SQLite in the data directory.
    var store: StoreConfiguration?
    /// `--node-name`: this server's name among the nodes on one database, holder of the triggers it runs.
    var nodeName: String

    /// A PostgreSQL store as it prints: without its password.
    private static func describe(_ store: StoreConfiguration?) -> String? {
        guard case .postgresql(let location)? = store?.engine else { return nil }
        return "\(location)"
    }
    /// `--watch`: the arguments the supervised server gets (these without `--watch` and `--build-command`).
    var watch: (childArguments: [String], buildCommand: String?)?

    enum LogFormat: String {
        case text, json
    }

    enum PushMode: String {
        case emulator, live
    }

    /// Whether only this machine reaches `host`, as a local mongod without users assumes.
    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    init(arguments: [String]) throws(UsageError) {
        let parsed = try Arguments(
            arguments,
            options: AppOptions.dataNames + [
                "--host", "--port", "--app-id", "--log-format", "--build-command", "--import", "--export-on-exit",
                "--push", "--service-account", "--query-time-limit", "--mongodb-port", "--mongodb-host",
                "--mongodb-tls-certificate", "--mongodb-tls-key", "--store", "--node-name",
            ],
            flags: ["--watch", "--accept-data-loss"], takesPositionals: false,
            usage: Self.usage)
        app = try AppOptions(parsed, usage: Self.usage)
        app.acceptingDataLoss = parsed.has("--accept-data-loss")
        host = parsed.value("--host") ?? "127.0.0.1"
        let portText = parsed.value("--port") ?? "9090"
        guard let port = UInt16(portText) else {
            throw UsageError("--port takes a number from 0 to 65535, not '\(portText)'", usage: Self.usage)
        }
        self.port = port
        let mongoDBPortText = parsed.value("--mongodb-port")
        guard let mongoDBPort = UInt16(mongoDBPortText ?? "27017") else {
            throw UsageError(
                "--mongodb-port takes a number from 0 to 65535, not '\(mongoDBPortText ?? "")'", usage: Self.usage)
        }
        let mongoDBHost = parsed.value("--mongodb-host") ?? "127.0.0.1"
        var tls: WireTLS?
        switch (parsed.value("--mongodb-tls-certificate"), parsed.value("--mongodb-tls-key")) {
        case (nil, nil): break
        case (let certificate?, let key?):
            do {
                tls = try WireTLS(certificateFile: certificate, keyFile: key)
            } catch {
                throw UsageError("--mongodb-tls-certificate/--mongodb-tls-key: \(error)", usage: Self.usage)
            }
        case (nil, _?): throw UsageError("--mongodb-tls-key needs --mongodb-tls-certificate", usage: Self.usage)
        case (_?, nil): throw UsageError("--mongodb-tls-certificate needs --mongodb-tls-key", usage: Self.usage)
        }
        mongoDB =
            mongoDBPort == 0
            ? nil
            : ServeLifecycle.MongoDBListener(
                host: mongoDBHost, port: mongoDBPort, required: mongoDBPortText != nil, tls: tls)
        appId = parsed.value("--app-id")
        let formatText = parsed.value("--log-format") ?? "text"
        guard let logFormat = LogFormat(rawValue: formatText) else {
            throw UsageError("--log-format is text or json, not '\(formatText)'", usage: Self.usage)
        }
        self.logFormat = logFormat
        let pushText = parsed.value("--push") ?? "emulator"
        guard let push = PushMode(rawValue: pushText) else {
            throw UsageError("--push is emulator or live, not '\(pushText)'", usage: Self.usage)
        }
        self.push = push
        serviceAccountFile = parsed.value("--service-account")
        if serviceAccountFile != nil, push != .live {
            throw UsageError("--service-account is for --push live", usage: Self.usage)
        }
        let limitText = parsed.value("--query-time-limit")
        if let limitText {
            guard let seconds = Double(limitText), seconds > 0, seconds <= 86_400 else {
                throw UsageError(
                    "--query-time-limit takes seconds, more than 0 and at most 86400, not '\(limitText)'",
                    usage: Self.usage)
            }
            queryTimeLimit = .milliseconds(Int64((seconds * 1000).rounded(.up)))
        } else {
            queryTimeLimit = ClientAPI.Configuration.defaultQueryTimeLimit
        }
        if let url = parsed.value("--store") {
            do {
                store = try StoreConfiguration.postgresql(url: url)
            } catch {
                throw UsageError("--store: \(error.message)", usage: Self.usage)
            }
        }
        nodeName =
            parsed.value("--node-name")
            ?? "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier)"
        guard !nodeName.isEmpty else { throw UsageError("--node-name takes a name, not ''", usage: Self.usage) }
        importDirectory = parsed.value("--import")
        exportDirectory = parsed.value("--export-on-exit")
        if parsed.has("--watch") {
            // The port is picked now when 0, so every restart listens where the first server did.
            var child = [
                "serve", "--config", app.directory, "--data-dir", app.dataDirectory, "--environment",
                app.environment.rawValue, "--host", host, "--port", "\(port == 0 ? FreePort.pick() : port)",
                "--log-format", logFormat.rawValue,
            ]
            if let appId { child += ["--app-id", appId] }
            if let text = parsed.value("--mongodb-port") { child += ["--mongodb-port", text] }
            if let text = parsed.value("--mongodb-host") { child += ["--mongodb-host", text] }
            for option in ["--mongodb-tls-certificate", "--mongodb-tls-key"] {
                if let file = parsed.value(option) { child += [option, file] }
            }
            child += ["--push", push.rawValue]
            if let serviceAccountFile { child += ["--service-account", serviceAccountFile] }
            if let limitText { child += ["--query-time-limit", limitText] }
            if let url = parsed.value("--store") { child += ["--store", url] }
            if let name = parsed.value("--node-name") { child += ["--node-name", name] }
            // Every server exports when it stops (the last one's export is the one left); only the first imports.
            if let directory = parsed.value("--export-on-exit") { child += ["--export-on-exit", directory] }
            watch = (child, parsed.value("--build-command"))
        } else if parsed.value("--build-command") != nil {
            throw UsageError("--build-command is for --watch", usage: Self.usage)
        }
    }

    func run() async throws(CommandFailure) -> Int32 {
        if let watch { return await supervise(childArguments: watch.childArguments, buildCommand: watch.buildCommand) }
        let stop = StopSignal()
        let hangup = HangupSignal()
        let log = ServeLog(format: logFormat)
        var transport: (any PushMessaging)?
        guard let configuration = app.load() else { return 2 }
        // `--store` before `triggers.yaml`'s `store:`.
        let store = store ?? configuration.storeLocation.map { StoreConfiguration(engine: .postgresql($0)) }
        if push == .live {
            do {
                transport = try LiveMessaging.transport(for: configuration, serviceAccountFile: serviceAccountFile)
            } catch {
                Output.error("switchyard serve: --push live: \(error.message)")
                return 2
            }
        }
        let lifecycle = ServeLifecycle(
            ServeLifecycle.Configuration(
                app: configuration, directory: app.directory, registry: CommandLineTool.registry,
                dataDirectory: app.dataDirectory, acceptingDataLoss: app.acceptingDataLoss, store: store,
                options: SwitchyardApp.Options(
                    messaging: transport, triggers: TriggerRuntimeConfiguration(node: nodeName)),
                importDirectory: importDirectory,
                exportDirectory: exportDirectory,
                server: AppServer.Configuration(
                    host: host, port: port, appId: appId,
                    clientAPI: ClientAPI.Configuration(queryTimeLimit: queryTimeLimit)),
                mongoDB: mongoDB))
        let hangups = Task {
            for await _ in hangup.signals { lifecycle.reload() }
        }
        defer { hangups.cancel() }
        let supervisor = ProcessInfo.processInfo.environment[Self.supervisorVariable]
        do {
            try await lifecycle.run(
                until: {
                    await stop.wait(orUntilSupervisorExits: supervisor) == SIGINT ? "interrupt" : "terminate"
                },
                events: { event in write(event, to: log, store: Self.describe(store)) })
        } catch {
            switch error.stage {
            case .importing:
                Output.error(error.description)
                return 2
            case .claimingDataDirectory, .opening: Output.error(error.description)
            case .starting: Output.error("switchyard serve: \(error)")
            }
            return 1
        }
        return 0
    }

    /// Prints a lifecycle event as serve's log line for it (progress of an import prints nothing).
    /// `store`: the PostgreSQL store's URL without its password; nil for SQLite in the data directory.
    private func write(_ event: ServeLifecycle.Event, to log: ServeLog, store: String?) {
        switch event {
        case .importing: break
        case .imported(let summary, let directory):
            log.event(
                "imported \(summary.documents) documents in \(summary.collections.count) collections from \(directory)")
        case .serving(let server):
            log.serving(
                server, dataDirectory: app.dataDirectory, store: store, push: pushDescription(server.app))
            if server.app.hasNoDataAccessRules {
                // Said once: without it a new app's refused client requests would be a mystery.
                log.event(
                    "no data access rules: clients' mongodb-atlas requests are refused (no rule exists for namespace); add a rules: section to triggers.yaml or data_sources/mongodb-atlas/default_rule.json (README: Data access rules and schemas)"
                )
            }
        case .servingMongoDB(let connectionString, let users):
            log.mongoDB(connectionString, users: users)
            if users == 0, let host = mongoDB?.host, !Self.isLoopback(host) {
                log.problem(
                    "MongoDB: listening on \(host) with no users, so without authentication: whoever reaches the port reads and writes every database; add a user with 'switchyard users add NAME'"
                )
            }
        case .mongoDBNotServing(let reason): log.problem("MongoDB: \(reason)")
        case .invocations(let records): log.invocations(records)
        case .reloaded(let change): log.event("reloaded the configuration: \(change)")
        case .notReloaded(let errors as ConfigurationErrors):
            log.problem("the configuration was not reloaded (the previous one stays in effect):\n\(errors)")
        case .notReloaded(let error): log.problem("the configuration was not reloaded: \(error)")
        case .stopping(let reason): log.event("stopping (\(reason))")
        case .exported(let collections, let directory):
            log.event("exported \(collections.count) collections to \(directory)")
        case .notExported(let error, let directory):
            log.problem("could not export the data to \(directory): \(error)")
        case .stopped: log.event("stopped")
        }
    }

    /// Where functions' pushes go, for the start-up lines (never a credential).
    private func pushDescription(_ app: SwitchyardApp) -> String {
        switch push {
        case .emulator: return "emulator (FCM client → this server)"
        case .live:
            if let client = app.messaging.transport as? FCMClient { return "live FCM, project \(client.projectId)" }
            if let client = app.messaging.transport as? APNsClient {
                return "live APNs, \(client.configuration.baseURL)"
            }
            return "live"
        }
    }

    private func supervise(childArguments: [String], buildCommand: String?) async -> Int32 {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let build: BuildCommand
        if let buildCommand {
            build = .shell(buildCommand)
        } else if let derived = BuildCommand.swiftBuild(executable: executable, configurationDirectory: app.directory) {
            build = derived
        } else {
            Output.error(
                "switchyard serve --watch: no Package.swift at or above \(app.directory) to rebuild the functions with; give --build-command"
            )
            return 2
        }
        let supervisor = WatchSupervisor(
            executable: executable, childArguments: childArguments,
            firstStartArguments: (importDirectory.map { ["--import", $0] } ?? [])
                + (app.acceptingDataLoss ? ["--accept-data-loss"] : []), configurationDirectory: app.directory,
            dataDirectory: app.dataDirectory, build: build,
            validationArguments: ["--config", app.directory, "--environment", app.environment.rawValue],
            log: ServeLog(format: logFormat))
        return await supervisor.run()
    }
}
