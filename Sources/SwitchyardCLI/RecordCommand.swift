import DocumentStore
import Foundation
import Switchyard

/// `switchyard record --trigger T [--since TIME] [--until TIME] FILE`: writes what a trigger received, and the data
/// its function read, for `switchyard replay`.
struct RecordCommand: Command {
    static let name = "record"
    static let summary = "Record a database trigger's events, runs and data over a time window (for replay)"
    static let usage = """
        USAGE: switchyard record --trigger NAME [--since TIME] [--until TIME] [options] FILE

        Writes FILE, a recording of what database trigger NAME received in the window: each change event
        its route took from the change log (its operation types, match, project, fullDocument and
        pre-image options applied), the runs the invocation log holds for it (outcome, error, log lines),
        the messages those runs sent (outbox entries carry their run) and the changes they made (the
        change log tags each entry with the run that wrote it). Also the app's data as of the window's start:
        the data now with every later change undone from its pre-image. Documents of collections that
        keep no pre-images cannot be undone; they are recorded as they are now, with a warning (printed
        and in the file). The file is JSON lines of relaxed Extended JSON, written whole or not at all.
        Reads the data directory without locking it: it can be recorded while the app is serving.

        Exit status: 0 when FILE was written, 1 when the store cannot be read, 2 for an unknown or
        non-database trigger, a bad time, or a FILE that cannot be written.

        OPTIONS:
          --trigger NAME        The database trigger to record
          --since TIME          The window's start: ISO-8601 (2026-05-01T12:00:00Z) or how long ago (15m,
                                2h, 3d) (default: the oldest change the log keeps)
          --until TIME          The window's end, exclusive (default: now)
        \(AppOptions.dataUsage)
          -h, --help            Show this help
        """

    var app: AppOptions
    var trigger: String
    var since: Date?
    var until: Date?
    var file: String

    init(arguments: [String]) throws(UsageError) {
        let parsed = try Arguments(
            arguments, options: AppOptions.dataNames + ["--trigger", "--since", "--until"], flags: [],
            usage: Self.usage)
        guard let trigger = parsed.value("--trigger") else {
            throw UsageError("missing --trigger NAME, the trigger to record", usage: Self.usage)
        }
        guard let file = parsed.positionals.first else {
            throw UsageError("missing FILE, where to write the recording", usage: Self.usage)
        }
        guard parsed.positionals.count == 1 else {
            throw UsageError("unexpected argument '\(parsed.positionals[1])'", usage: Self.usage)
        }
        func time(_ option: String) throws(UsageError) -> Date? {
            guard let text = parsed.value(option) else { return nil }
            guard let date = RecordingTime.parse(text) else {
                throw UsageError(
                    "\(option) '\(text)' is not a time: give ISO-8601 (2026-05-01T12:00:00Z) or how long ago (15m, 2h, 3d)",
                    usage: Self.usage)
            }
            return date
        }
        app = try AppOptions(parsed, usage: Self.usage)
        self.trigger = trigger
        since = try time("--since")
        until = try time("--until")
        self.file = file
    }

    func run() async throws(CommandFailure) -> Int32 {
        let configuration = try app.configuration()
        let triggers = configuration.triggers
        guard let definition = triggers.first(where: { $0.name == trigger }) else {
            let hint = ClosestMatch.suggestion(for: trigger, among: triggers.map(\.name)).map {
                " (did you mean '\($0)'?)"
            }
            throw CommandFailure("switchyard record: no trigger named '\(trigger)'\(hint ?? "")", status: 2)
        }
        guard let store = try await app.openStoreForReading() else {
            throw CommandFailure(
                "switchyard record: \(app.dataDirectory) holds no store yet: nothing to record", status: 1)
        }
        let recording: TriggerRecording
        do {
            let recorder = TriggerRecorder(
                store: store, invocations: InvocationLog(store: store), outbox: OutboxLog(store: store))
            recording = try await recorder.record(definition, since: since, until: until)
        } catch {
            await store.close()
            throw CommandFailure("switchyard record: \(error)", status: error.isBadInput ? 2 : 1)
        }
        await store.close()
        for note in recording.notes { Output.error("warning: \(note)") }
        do {
            try recording.write(to: file)
        } catch {
            throw CommandFailure("switchyard record: \(error)", status: 2)
        }
        let runs = recording.changes.reduce(0) { $0 + $1.runs.count }
        Output.print(
            "recorded \(recording.eventCount) event(s) of trigger \(trigger) with \(runs) run(s), "
                + "\(recording.changes.count) change(s) in the window and a snapshot of "
                + "\(recording.snapshot.reduce(0) { $0 + $1.documents.count }) document(s) to \(file)")
        return 0
    }
}
