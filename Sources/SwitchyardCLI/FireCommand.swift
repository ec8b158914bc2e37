import BSON
import Foundation
import Switchyard

/// `switchyard fire TRIGGER --event FILE`: runs a trigger's function once on an event, as the dispatcher would.
struct FireCommand: Command {
    static let name = "fire"
    static let summary = "Run a trigger's function on an event (see generate-event); print the outcome and logs"
    static let usage = """
        USAGE: switchyard fire TRIGGER [--event EVENT.json] [--user ID] [options]

        Opens the app and runs TRIGGER's function once, as the dispatcher runs one attempt: as the system
        user, within the function's time limit, recorded in the invocation log. Prints the invocation
        (outcome, duration, the function's log lines, the error). Nothing else reacts: other triggers,
        retries and the trigger's resume token are left alone.

          database trigger        --event is a change event (switchyard generate-event makes one)
          scheduled trigger       --event is optional: {"scheduledTime": {"$date": "…"}}; default now
          authentication trigger  --user ID names the user; providers are the trigger's

        Exit status: 0 when the function succeeded, 1 when it failed or timed out, 2 for an unknown
        trigger, a missing or invalid event, or an invalid configuration.

        OPTIONS:
          --event FILE          The event, as Extended JSON ('-' reads standard input)
          --user ID             The user of an authentication event
        \(AppOptions.dataUsage)
          -h, --help            Show this help
        """

    var app: AppOptions
    var trigger: String
    var eventFile: String?
    var user: String?

    init(arguments: [String]) throws(UsageError) {
        let parsed = try Arguments(
            arguments, options: AppOptions.dataNames + ["--event", "--user"], flags: [], usage: Self.usage)
        guard let trigger = parsed.positionals.first else {
            throw UsageError("missing TRIGGER, the trigger to fire", usage: Self.usage)
        }
        guard parsed.positionals.count == 1 else {
            throw UsageError("unexpected argument '\(parsed.positionals[1])'", usage: Self.usage)
        }
        app = try AppOptions(parsed, usage: Self.usage)
        self.trigger = trigger
        eventFile = parsed.value("--event")
        user = parsed.value("--user")
    }

    func run() async throws(CommandFailure) -> Int32 {
        let configuration = try self.app.configuration()
        let triggers = configuration.triggers
        guard let definition = triggers.first(where: { $0.name == trigger }) else {
            let hint = ClosestMatch.suggestion(for: trigger, among: triggers.map(\.name)).map {
                " (did you mean '\($0)'?)"
            }
            Output.error("switchyard fire: no trigger named '\(trigger)'\(hint ?? "")")
            return 2
        }
        // The event is read and checked before the app opens, so a bad one leaves the data directory alone.
        let invocation = try self.invocation(of: definition)
        let opened = try await self.app.openApp(configuration)
        let app = opened.app
        let records = app.invocations.follow()
        var failed = false
        do {
            try await app.triggerHandler(invocation)
        } catch {
            failed = true
        }
        // Stopping ends the followers' streams, so the loop below sees this run's records and ends.
        await opened.stop()
        for await record in records where record.trigger == definition.name {
            for line in record.lines { Output.print(line) }
        }
        return failed ? 1 : 0
    }

    /// The attempt to run: the event read and checked against the trigger's kind.
    private func invocation(of definition: TriggerDefinition) throws(CommandFailure) -> TriggerInvocation {
        let document = try eventFile.map { path throws(CommandFailure) in try Self.readDocument(path) }
        let invocation: TriggerInvocation
        do {
            invocation = try TriggerInvocation.manual(definition, event: document, user: user)
        } catch {
            let hint =
                switch definition.kind {
                case .database where eventFile == nil: " (give --event; switchyard generate-event makes one)"
                case .authentication: " (give --user ID)"
                case .database, .scheduled: ""
                }
            throw CommandFailure("switchyard fire: \(eventFile.map { "\($0): " } ?? "")\(error)\(hint)", status: 2)
        }
        if let note = invocation.operationTypeNote { Output.error("note: \(note); running it anyway") }
        return invocation
    }

    private static func readDocument(_ path: String) throws(CommandFailure) -> BSONDocument {
        let data: Data
        if path == "-" {
            guard let read = try? FileHandle.standardInput.readToEnd() ?? Data() else {
                throw CommandFailure("switchyard fire: cannot read standard input", status: 2)
            }
            data = read
        } else {
            do {
                data = try LocalFile.contents(path)
            } catch {
                throw CommandFailure("switchyard fire: \(error)", status: 2)
            }
        }
        do {
            return try ExtendedJSON.parseDocument(data)
        } catch {
            throw CommandFailure(
                "\(path == "-" ? "<stdin>" : path):\(error.line):\(error.column): \(error.message)", status: 2)
        }
    }
}
