import BSON
import DocumentStore
import Foundation
import Messaging
import Switchyard
import Synchronization
import TestSupport
import Testing

@testable import SwitchyardServer

/// `switchyard serve`'s lifecycle in-process: an app directory and a data directory on disk, served on a loopback
/// port, reloaded, stopped and exported as the command does, told through its events.
@Suite(.timeLimit(.minutes(2))) struct ServeLifecycleTests {
    static let quickRetry = Messaging.RetryPolicy(
        maximumAttempts: 3, initialBackoff: .milliseconds(10), maximumBackoff: .milliseconds(50))

    /// A function still running when the stop begins sends its push through the served FCM emulator after the stop
    /// was asked for: the triggers stop before the server, so the push is delivered on its first attempt instead of
    /// meeting a closed port.
    @Test func aFunctionRunningWhenTheStopBeginsStillReachesTheServedEmulator() async throws {
        let reachedSend = Gate()
        let send = Gate()
        var registry = FunctionRegistry()
        registry.register("announce") { (_: ChangeEvent, context: FunctionContext) in
            // A send under way: its transport (the served FCM client) is picked, its request not made yet.
            guard let route = context.services.messaging as? MessagingRoute else {
                throw TestFailure("messaging is \(type(of: context.services.messaging)), not a route")
            }
            let transport = route.transport
            reachedSend.open()
            await send.wait()
            _ = try await transport.send(PushMessage(target: .topic("books"), data: ["title": "Dune"]))
        }
        let directory = try AppDirectory(
            triggers: """
                triggers:
                  - name: announce
                    type: database
                    function: announce
                    database: shop
                    collection: books
                    operations: [INSERT]
                """)
        let lifecycle = ServeLifecycle(try directory.configuration(registry, retry: Self.quickRetry))
        let events = ToldEvents()
        let running = Task { try await lifecycle.run(events: events.record) }
        let server = try await events.first(\.server)
        #expect(server.emulatorClient != nil)
        try await server.app.store.database("shop").collection("books").insertOne(["_id": "dune"])
        await reachedSend.wait()

        lifecycle.stop(reason: "test")
        // The triggers' stop has begun, waiting for the function: were the server stopped first, it would be gone.
        while await server.app.triggers.isRunning { try await Task.sleep(for: .milliseconds(1)) }
        send.open()
        try await running.value

        let runs = events.all.flatMap(\.records).filter { $0.function == "announce" }
        #expect(runs.map(\.outcome) == [.success], "\(runs.compactMap(\.error))")
        #expect(runs.map(\.attempt) == [1])
        #expect(server.app.pushOutbox.entries.filter(\.isDelivered).count == 1)
        #expect(events.kinds == ["serving", "stopping", "stopped"])
    }

    /// A reload applies the files as they are now to the app being served: same server, same port, new values; a
    /// configuration with problems is told and leaves the one in effect.
    @Test func aReloadSwapsTheConfigurationOfTheServedAppInPlace() async throws {
        var registry = FunctionRegistry()
        registry.register("greet") { _, context in context.values.get("greeting") ?? .null }
        let directory = try AppDirectory(
            triggers: "auth:\n  providers: [anon-user]\n", values: #"{"greeting": "hello"}"#)
        let lifecycle = ServeLifecycle(try directory.configuration(registry))
        let events = ToldEvents()
        let running = Task { try await lifecycle.run(events: events.record) }
        let server = try await events.first(\.server)
        let served = ServedApp(app: server.app, server: server, client: try HTTPClient(), clock: TestClock())
        let login = try await served.loginAnonymously()
        #expect(try await served.call("greet", token: login.accessToken).text == #""hello""#)

        try directory.write("values.json", #"{"greeting": "bonjour"}"#)
        lifecycle.reload()
        let change = try await events.first(\.change)
        #expect(change.changedValues == ["greeting"])
        #expect(try await served.call("greet", token: login.accessToken).text == #""bonjour""#)

        try directory.write("triggers.yaml", "triggers:\n  - name: x\n    type: databse\n")
        lifecycle.reload()
        let refused = try await events.first(\.reloadError)
        #expect(refused is ConfigurationErrors, "\(refused)")
        #expect(try await served.call("greet", token: login.accessToken).text == #""bonjour""#)

        lifecycle.stop(reason: "test")
        try await running.value
        #expect(events.kinds == ["serving", "reloaded", "notReloaded", "stopping", "stopped"])
    }

    /// What clients wrote while served, and what was imported at start, is exported once everything stopped.
    @Test func theDataIsExportedOnExit() async throws {
        let directory = try AppDirectory()
        try directory.write("seed/shop.items.json", #"{"_id": 1, "name": "kettle"}"# + "\n")
        let lifecycle = ServeLifecycle(
            try directory.configuration(
                FunctionRegistry(), importing: directory.path + "/seed", exporting: directory.path + "/out"))
        let events = ToldEvents()
        let running = Task { try await lifecycle.run(events: events.record) }
        let server = try await events.first(\.server)
        try await server.app.store.database("shop").collection("items").insertOne(["_id": 2, "name": "mug"])
        lifecycle.stop(reason: "test")
        try await running.value

        let exported = try #require(directory.read("out/shop.items.json"))
        #expect(exported.split(separator: "\n").count == 2)
        #expect(exported.contains("kettle") && exported.contains("mug"), "\(exported)")
        #expect(events.kinds == ["importing", "imported", "serving", "stopping", "exported", "stopped"])
    }

    /// A stop asked for while the import runs lets the import land whole (it is one transaction), serves nothing,
    /// exports, and leaves the data directory to the next writer.
    @Test func aStopWhileImportingEndsWithTheImportWholeAndNothingServed() async throws {
        let directory = try AppDirectory()
        let items = (0..<2_000).map { #"{"_id": \#($0), "name": "item \#($0)"}"# }
        try directory.write("seed/shop.items.json", items.joined(separator: "\n") + "\n")
        let lifecycle = ServeLifecycle(
            try directory.configuration(
                FunctionRegistry(), importing: directory.path + "/seed", exporting: directory.path + "/out"))
        let events = ToldEvents()
        try await lifecycle.run { event in
            events.record(event)
            if case .importing = event { lifecycle.stop(reason: "test") }
        }

        #expect(events.kinds == ["importing", "imported", "stopping", "exported", "stopped"])
        let claim = try await Self.claim(directory.dataDirectory)
        let store = try await DocumentStore.open(.sqlite(directory: directory.dataDirectory))
        #expect(try await store.database("shop").collection("items").countDocuments([:]) == items.count)
        await store.close()
        withExtendedLifetime(claim) {}
        #expect(directory.read("out/shop.items.json")?.split(separator: "\n").count == items.count)
    }

    /// The data directory's lock, taken as the next writer would. Asked again for up to five seconds: a child
    /// another test starts meanwhile holds a copy of the lock's descriptor from its fork until its exec closes it.
    private static func claim(_ directory: String) async throws -> DataDirectoryClaim {
        let deadline = ContinuousClock.now + .seconds(5)
        while true {
            do {
                return try DataDirectoryClaim.take(directory)
            } catch {
                guard ContinuousClock.now < deadline else { throw error }
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// A server that cannot listen is a failure to start: nothing keeps running, and the data directory this run
    /// created is gone.
    @Test func aPortInUseFailsTheStartAndLeavesNoDataDirectory() async throws {
        let directory = try AppDirectory()
        let taken = ToldEvents()
        let first = ServeLifecycle(try directory.configuration(FunctionRegistry()))
        let running = Task { try await first.run(events: taken.record) }
        let port = try await taken.first(\.server).http.port

        var configuration = try directory.configuration(FunctionRegistry(), port: port)
        configuration.dataDirectory = directory.path + "/other-data"
        let events = ToldEvents()
        await #expect {
            try await ServeLifecycle(configuration).run(events: events.record)
        } throws: { error in
            (error as? ServeLifecycle.Failure)?.stage == .starting
        }
        #expect(events.kinds.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: configuration.dataDirectory))
        first.stop(reason: "test")
        try await running.value
    }
}

/// An app's directory (`triggers.yaml`, `values.json`) with its data directory inside, removed with the value.
final class AppDirectory: Sendable {
    private let directory: TemporaryDirectory
    var path: String { directory.path }
    var dataDirectory: String { path + "/data" }

    init(triggers: String = "", values: String = "{}") throws {
        directory = try TemporaryDirectory(prefix: "lifecycle")
        try directory.write("triggers.yaml", triggers)
        try directory.write("values.json", values)
    }

    func write(_ relative: String, _ contents: String) throws { try directory.write(relative, contents) }

    func read(_ relative: String) -> String? { directory.read(relative) }

    /// This app served on a free loopback port under `ServedApp.appId`, secrets looked up nowhere.
    func configuration(
        _ registry: FunctionRegistry, importing: String? = nil, exporting: String? = nil, port: UInt16 = 0,
        retry: Messaging.RetryPolicy = Messaging.RetryPolicy()
    ) throws -> ServeLifecycle.Configuration {
        ServeLifecycle.Configuration(
            app: try registry.loadConfiguration(directory: path, variables: [:]), directory: path,
            registry: registry, dataDirectory: dataDirectory, options: SwitchyardApp.Options(variables: [:]),
            importDirectory: importing, exportDirectory: exporting,
            server: AppServer.Configuration(
                port: port, appId: ServedApp.appId, clientAPI: ClientAPI.Configuration(passwordIterations: 1_000),
                emulatorClientRetry: retry))
    }
}

/// Every event a lifecycle told, in order, for a test to wait on (bounded by the suite's time limit).
final class ToldEvents: Sendable {
    private let told = Mutex<[ServeLifecycle.Event]>([])

    var all: [ServeLifecycle.Event] { told.withLock { $0 } }

    /// The events' names but for batches of runs (told whenever functions finish), a run of the same one (import
    /// progress) counted once.
    var kinds: [String] {
        all.map(\.kind).filter { $0 != "invocations" }.reduce(into: []) { kinds, kind in
            if kinds.last != kind { kinds.append(kind) }
        }
    }

    @Sendable func record(_ event: ServeLifecycle.Event) {
        told.withLock { $0.append(event) }
    }

    /// The first event `pick` finds something in, once told.
    func first<Found>(_ pick: @Sendable (ServeLifecycle.Event) -> Found?) async throws -> Found {
        while true {
            if let found = told.withLock({ $0.lazy.compactMap(pick).first }) { return found }
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}

extension ServeLifecycle.Event {
    var kind: String {
        switch self {
        case .importing: "importing"
        case .imported: "imported"
        case .serving: "serving"
        case .servingMongoDB: "servingMongoDB"
        case .mongoDBNotServing: "mongoDBNotServing"
        case .invocations: "invocations"
        case .reloaded: "reloaded"
        case .notReloaded: "notReloaded"
        case .stopping: "stopping"
        case .exported: "exported"
        case .notExported: "notExported"
        case .stopped: "stopped"
        }
    }

    var server: AppServer? {
        if case .serving(let server) = self { server } else { nil }
    }

    var records: [InvocationRecord] {
        if case .invocations(let records) = self { records } else { [] }
    }

    var change: ConfigurationChange? {
        if case .reloaded(let change) = self { change } else { nil }
    }

    var reloadError: (any Error)? {
        if case .notReloaded(let error) = self { error } else { nil }
    }
}
