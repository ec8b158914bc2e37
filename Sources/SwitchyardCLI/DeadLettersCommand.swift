import DocumentStore
import Switchyard
import SwitchyardServer

/// `switchyard dead-letters`: the events triggers gave up on, with the id `switchyard redeliver` takes.
struct DeadLettersCommand: Command {
    static let name = "dead-letters"
    static let summary = "List the events triggers gave up on after their last retry"
    static let usage = """
        USAGE: switchyard dead-letters [--trigger NAME] [--events] [options]

        Prints one row per dead letter, oldest first: its id (for 'switchyard redeliver ID'), the trigger,
        the kind of event, the event's id, the attempts made and when the last one failed (UTC), then the
        last error. While 'switchyard serve' runs on the data directory, the letters are what the server
        reports; otherwise what the store holds.

        OPTIONS:
          --trigger NAME        Only this trigger's letters
          --events              Also print each original event (relaxed Extended JSON)
        \(AppOptions.dataUsage)
          -h, --help            Show this help
        """

    var app: AppOptions
    var trigger: String?
    var events: Bool

    init(arguments: [String]) throws(UsageError) {
        let parsed = try Arguments(
            arguments, options: AppOptions.dataNames + ["--trigger"], flags: ["--events"], usage: Self.usage)
        if let extra = parsed.positionals.first {
            throw UsageError("unexpected argument '\(extra)'", usage: Self.usage)
        }
        app = try AppOptions(parsed, usage: Self.usage)
        trigger = parsed.value("--trigger")
        events = parsed.has("--events")
    }

    func run() async throws(CommandFailure) -> Int32 {
        let configuration = try app.configuration()
        if let trigger, !configuration.triggers.contains(where: { $0.name == trigger }) {
            let hint = ClosestMatch.suggestion(for: trigger, among: configuration.triggers.map(\.name)).map {
                " (did you mean '\($0)'?)"
            }
            throw CommandFailure("switchyard dead-letters: no trigger named '\(trigger)'\(hint ?? "")", status: 2)
        }
        let letters: [DeadLetter]
        // While `serve` runs it is the store's one writer, and its letters change under a redelivery: ask it.
        if let server = AdminEndpoint.running(dataDirectory: app.dataDirectory) {
            do {
                letters = try await server.deadLetters(trigger: trigger)
            } catch {
                throw CommandFailure(
                    "switchyard dead-letters: the server at \(server.url) did not answer: \(error)", status: 1)
            }
        } else {
            // An app that never ran has no letters.
            guard let store = try await app.openStoreForReading() else {
                for line in DeadLetter.table([]) { Output.print(line) }
                return 0
            }
            let runtime = TriggerRuntime(store: store, definitions: configuration.triggers) { _ in }
            let read = await Result { try await runtime.deadLetters(trigger: trigger) }
            await store.close()
            do {
                letters = try read.get()
            } catch {
                throw CommandFailure("switchyard dead-letters: cannot read the dead letters: \(error)", status: 1)
            }
        }
        for line in DeadLetter.table(letters, events: events) { Output.print(line) }
        return 0
    }
}
