import BSON
import Foundation
import Switchyard

/// `switchyard replay FILE [--function F] [--json]`: runs a recording's events again and compares each run with
/// the recorded one.
struct ReplayCommand: Command {
    static let name = "replay"
    static let summary = "Re-run a recording's events (switchyard record) and show what differs from then"
    static let usage = """
        USAGE: switchyard replay FILE [--function NAME] [--json] [options]

        Loads the recording's snapshot into a scratch in-memory copy of the app (its triggers stopped,
        sends going to an outbox that delivers nothing; the data directory is not touched), makes the
        window's changes again in order, and after each event the trigger took runs the function on it
        as a first attempt. Prints, per event, whether the run did the same as the first recorded
        attempt (outcome, error, messages sent, writes made) and what differs, both sides; then a
        summary (events, same, different). Writes compare without an inserted document's ObjectId _id
        and the values of dates, which a run makes afresh.

        Exit status: 0 when every run did the same, 1 when any differs, 2 for an unreadable recording,
        a trigger the app no longer has, or an unknown function.

        OPTIONS:
          --function NAME       Run this registered database-trigger function instead of the trigger's
          --json                Print the report as one relaxed Extended JSON document
        \(AppOptions.usage)
          -h, --help            Show this help
        """

    var app: AppOptions
    var file: String
    var function: String?
    var json: Bool

    init(arguments: [String]) throws(UsageError) {
        let parsed = try Arguments(
            arguments, options: AppOptions.names + ["--function"], flags: ["--json"], usage: Self.usage)
        guard let file = parsed.positionals.first else {
            throw UsageError("missing FILE, the recording to replay (switchyard record writes one)", usage: Self.usage)
        }
        guard parsed.positionals.count == 1 else {
            throw UsageError("unexpected argument '\(parsed.positionals[1])'", usage: Self.usage)
        }
        app = try AppOptions(parsed, usage: Self.usage)
        self.file = file
        function = parsed.value("--function")
        json = parsed.has("--json")
    }

    func run() async throws(CommandFailure) -> Int32 {
        let configuration = try app.configuration()
        let recording: TriggerRecording
        do {
            recording = try TriggerRecording(contentsOf: file)
        } catch {
            throw CommandFailure(error.description, status: 2)
        }
        let replay = TriggerReplay(configuration: configuration, registry: CommandLineTool.registry)
        do {
            _ = try replay.definition(for: recording, function: function)
        } catch {
            throw CommandFailure("switchyard replay: \(error)", status: 2)
        }
        let report: ReplayReport
        do {
            report = try await replay.run(recording, function: function)
        } catch {
            throw CommandFailure("switchyard replay: \(error)", status: 1)
        }
        for note in report.notes { Output.error("warning: \(note)") }
        if json {
            Output.print(report.document.extendedJSON(mode: .relaxed))
        } else {
            for line in report.lines { Output.print(line) }
        }
        return report.differences.isEmpty ? 0 : 1
    }
}
