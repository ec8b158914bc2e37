import DocumentStore
import Switchyard
import SwitchyardServer

/// `switchyard triggers`: the status table of the app's triggers, from their saved state.
struct TriggersCommand: Command {
    static let name = "triggers"
    static let summary = "Show each trigger's state, counts, pending change-log entries and last event"
    static let usage = """
        USAGE: switchyard triggers [options]

        Prints one row per trigger: name, type, function, state (running, suspended, disabled or stopped),
        events processed, failed attempts, events dead-lettered, pending events (change-log entries after
        its resume token that it receives), and when its last event happened (UTC). While 'switchyard serve'
        runs on the data directory, the rows are what the server reports; otherwise the saved state.
        A suspended trigger's reason follows its row; 'switchyard resume' starts it again.

        OPTIONS:
        \(AppOptions.dataUsage)
          -h, --help            Show this help
        """

    var app: AppOptions

    init(arguments: [String]) throws(UsageError) {
        app = try AppOptions(only: arguments, options: AppOptions.dataNames, usage: Self.usage)
    }

    func run() async -> Int32 {
        guard let configuration = app.load() else { return 2 }
        // While `serve` runs, only it knows which triggers run and what they are doing: ask it.
        if let server = AdminEndpoint.running(dataDirectory: app.dataDirectory) {
            do {
                for line in TriggerStatus.table(try await server.triggerStatuses()) { Output.print(line) }
                return 0
            } catch {
                Output.error("note: the server at \(server.url) did not answer (\(error)); showing the saved state")
            }
        }
        do {
            // An app that never ran has no saved state: an empty in-memory store shows the same.
            let store: DocumentStore
            if let saved = try await app.openStoreForReading() {
                store = saved
            } else {
                store = try await DocumentStore.open(.memory)
            }
            let runtime = TriggerRuntime(store: store, definitions: configuration.triggers) { _ in }
            let statuses = await Result { try await runtime.statuses() }
            await store.close()
            for line in TriggerStatus.table(try statuses.get()) { Output.print(line) }
            return 0
        } catch let failure as CommandFailure {
            Output.error(failure.message)
            return failure.status
        } catch {
            Output.error("switchyard triggers: cannot read the triggers' state: \(error)")
            return 1
        }
    }
}
