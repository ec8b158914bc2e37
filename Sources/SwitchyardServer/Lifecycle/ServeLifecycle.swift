import DocumentStore
import Messaging
import MongoWire
import Switchyard

/// `switchyard serve` from start to exit, for whoever runs it in-process (the command line, a test, an app's own
/// executable): takes the data directory, opens the app, imports, serves it with its triggers, reloads its
/// configuration when asked and, once told to stop, stops in dependency order, exports and closes. Everything that
/// happens is told to `run`'s `events`, for the caller to print.
///
/// ```swift
/// let lifecycle = ServeLifecycle(
///     ServeLifecycle.Configuration(
///         app: try functionRegistry.loadConfiguration(directory: "app"), directory: "app",
///         registry: functionRegistry, dataDirectory: "app/.switchyard", server: AppServer.Configuration(port: 0)))
/// try await lifecycle.run(until: { await interrupted() }) { event in
///     if case .serving(let server) = event { print("serving at \(server.http.baseURL)") }
/// }
/// ```
///
/// Stopping waits for the triggers first (running functions finish, with the FCM emulator and APIs they use still
/// served), then the HTTP server, then exports; a stop asked for before the app is served (while importing) skips
/// serving and still exports and closes.
package final class ServeLifecycle: Sendable {
    package struct Configuration: Sendable {
        /// The app's configuration, loaded and checked against `registry`.
        package var app: AppConfiguration
        /// Where the configuration was loaded from, and each reload reads it again.
        package var directory: String
        package var registry: FunctionRegistry
        /// The app's store, held locked from start to exit.
        package var dataDirectory: String
        /// Opens a store whose files hold less than was committed, going on with what is left.
        package var acceptingDataLoss: Bool
        /// Where the store is when not in `dataDirectory` (`serve --store postgresql://…`); the data directory
        /// still holds the admin token and is claimed all the same.
        package var store: StoreConfiguration?
        /// How the app is opened (its transport, trigger clock, retention); `storage` is not used, and `variables`
        /// are where reloads look up secrets.
        package var options: SwitchyardApp.Options
        /// Imported (as `DataImport` does, firing no trigger) before the app is served.
        package var importDirectory: String?
        /// Where the data is exported to once the triggers and the server stopped.
        package var exportDirectory: String?
        /// The HTTP server; its `dataDirectory` is this configuration's.
        package var server: AppServer.Configuration
        /// The MongoDB wire protocol server over the same store; nil serves none.
        package var mongoDB: MongoDBListener?

        package init(
            app: AppConfiguration, directory: String, registry: FunctionRegistry, dataDirectory: String,
            acceptingDataLoss: Bool = false, store: StoreConfiguration? = nil,
            options: SwitchyardApp.Options = SwitchyardApp.Options(),
            importDirectory: String? = nil, exportDirectory: String? = nil,
            server: AppServer.Configuration = AppServer.Configuration(), mongoDB: MongoDBListener? = nil
        ) {
            self.app = app
            self.directory = directory
            self.registry = registry
            self.dataDirectory = dataDirectory
            self.acceptingDataLoss = acceptingDataLoss
            self.store = store
            self.options = options
            self.importDirectory = importDirectory
            self.exportDirectory = exportDirectory
            self.server = server
            self.mongoDB = mongoDB
        }
    }

    /// Where the MongoDB wire protocol is served, and whether a taken port stops the start.
    package struct MongoDBListener: Sendable {
        package var host: String
        package var port: UInt16
        /// A port asked for explicitly must be had; the default one is left out with a warning when taken.
        package var required: Bool
        /// TLS for every connection; nil serves plain TCP.
        package var tls: WireTLS?

        package init(host: String = "127.0.0.1", port: UInt16 = 27017, required: Bool = false, tls: WireTLS? = nil) {
            self.host = host
            self.port = port
            self.required = required
            self.tls = tls
        }
    }

    package let configuration: Configuration
    private let stopRequest = StopRequest()
    private let reloads: (stream: AsyncStream<Void>, continuation: AsyncStream<Void>.Continuation)

    package init(_ configuration: Configuration) {
        self.configuration = configuration
        // One pending request stands for any number: a reload reads the files as they are when it runs.
        reloads = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Asks for the configuration to be read again from `Configuration.directory` and applied in place (see
    /// `SwitchyardApp.reload`); told as `.reloaded` or `.notReloaded`. One asked for before the app is served runs
    /// once it is, and requests made while one runs are applied together after it.
    package func reload() {
        reloads.continuation.yield()
    }

    /// Asks `run` to stop, as its `until` condition does; the first reason given is the one told.
    package func stop(reason: String) {
        stopRequest.deliver(reason)
    }

    /// Runs the app until `stop(reason:)` is called or `until` returns (with the reason to tell); call it once.
    /// - Parameter events: told what happens, from any thread: the lifecycle's steps in order, batches of function
    ///   runs as they finish.
    /// - Throws: `Failure` when the app could not start; what was started is stopped, and a data directory this
    ///   run created is removed.
    package func run(
        until condition: (@Sendable () async -> String)? = nil, events: @escaping @Sendable (Event) -> Void
    ) async throws(Failure) {
        let stopRequest = self.stopRequest
        let conditionWatch = condition.map { condition in Task { stopRequest.deliver(await condition()) } }
        defer { conditionWatch?.cancel() }
        let claim: DataDirectoryClaim
        do {
            claim = try DataDirectoryClaim.take(configuration.dataDirectory)
        } catch {
            throw Failure(stage: .claimingDataDirectory, error: error)
        }
        let app: SwitchyardApp
        do {
            app = try await SwitchyardApp.open(
                configuration: configuration.app, registry: configuration.registry,
                store: configuration.store
                    ?? .sqlite(
                        directory: configuration.dataDirectory, acceptingDataLoss: configuration.acceptingDataLoss),
                options: configuration.options)
        } catch {
            claim.discard()
            throw Failure(stage: .opening, error: error)
        }
        if let directory = configuration.importDirectory {
            do {
                let summary = try await DataImport.import(from: directory, into: app.store) { events(.importing($0)) }
                events(.imported(summary, from: directory))
            } catch {
                await app.stop()
                claim.discard()
                throw Failure(stage: .importing, error: error)
            }
        }
        if let reason = stopRequest.reason {
            events(.stopping(reason: reason))
            await close(app, claim: claim, events: events)
            events(.stopped)
            return
        }
        // Followed before anything can run (triggers catching up at start, the first requests): every run is told.
        let invocations = app.invocations.followBatches()
        let server: AppServer
        var mongoDB: WireServer?
        var mongoDBUsers = WireUsers()
        do {
            var serverConfiguration = configuration.server
            serverConfiguration.dataDirectory = configuration.dataDirectory
            // Read once: users are added with `switchyard users add`, which needs the data directory free.
            if configuration.mongoDB != nil { mongoDBUsers = try await WireUsers.load(from: app.store) }
            // Serving first, so that triggers catching up already send through the emulator's client; a trigger
            // starting for the first time starts from before the first request, so that every write served reaches it.
            let logEnd = try await app.changeLogEnd()
            server = try await AppServer.start(app: app, configuration: serverConfiguration)
            if let listener = configuration.mongoDB {
                do {
                    mongoDB = try WireServer.start(
                        store: app.store,
                        configuration: WireServer.Configuration(
                            host: listener.host, port: listener.port, users: mongoDBUsers, tls: listener.tls))
                } catch let error where !listener.required && error.reason == .addressInUse {
                    events(
                        .mongoDBNotServing(
                            reason: "\(error); running without the MongoDB wire protocol (give --mongodb-port)"))
                } catch {
                    await server.stop()
                    throw error
                }
            }
            do {
                try await app.start(newTriggersAfter: logEnd)
            } catch {
                await mongoDB?.stop()
                await server.stop()
                throw error
            }
        } catch {
            await app.stop()
            claim.discard()
            throw Failure(stage: .starting, error: error)
        }
        let teller = Task {
            for await records in invocations {
                events(.invocations(records))
                // Lets the next runs gather into one batch: a busy server would otherwise wake this task, and its
                // caller's printing, for every run or two.
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        let reloader = Task { [configuration, reloads] in
            for await _ in reloads.stream {
                // In a task of its own, so the cancellation that ends this loop at stop lets a reload under way finish.
                let outcome = await Task {
                    try await app.reload(
                        directory: configuration.directory, environment: configuration.app.environment,
                        variables: configuration.options.variables)
                }.result
                switch outcome {
                case .success(let change): events(.reloaded(change))
                case .failure(let error): events(.notReloaded(error))
                }
            }
        }
        events(.serving(server))
        if let mongoDB {
            events(.servingMongoDB(connectionString: mongoDB.connectionString, users: mongoDBUsers.names.count))
        }
        let reason = await stopRequest.wait()
        events(.stopping(reason: reason))
        reloader.cancel()
        await reloader.value
        // Triggers first: their functions send through this server's FCM emulator (and may call its APIs), so the
        // endpoints they use stay up until the last running function has finished.
        await app.triggers.stop()
        await mongoDB?.stop()
        await server.stop()
        await close(app, claim: claim, events: events)
        await teller.value
        events(.stopped)
    }

    /// Exports when asked, stops the app (its store closed) and lets the data directory go.
    private func close(_ app: SwitchyardApp, claim: DataDirectoryClaim, events: @Sendable (Event) -> Void) async {
        if let directory = configuration.exportDirectory {
            do {
                events(.exported(try await DataExport.export(store: app.store, to: directory), to: directory))
            } catch {
                events(.notExported(error, to: directory))
            }
        }
        await app.stop()
        // Kept to here explicitly: a value may be released after its last use, and with it the lock.
        withExtendedLifetime(claim) {}
    }
}
