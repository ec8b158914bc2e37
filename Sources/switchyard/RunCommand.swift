import Foundation
import Switchyard

/// `switchyard run`: loads the app (validating it) and reports what it runs.
struct RunCommand: Command {
    static let name = "run"
    static let summary = "Load the app and report its triggers (type, source, function) and values"
    static let usage = """
        USAGE: switchyard run [--config DIR] [--environment NAME]

        Loads and validates the app's configuration, then lists each trigger with its type, what fires it
        (collection and operation types, cron schedule with the next fire time in UTC, or authentication
        operation and providers), the function it calls and whether it is disabled, and each value
        (secrets print as <secret>). Configuration problems print as FILE:LINE:COLUMN: message, exit status 2.

        OPTIONS:
        \(AppOptions.usage)
          -h, --help            Show this help
        """

    var app: AppOptions

    init(arguments: [String]) throws(UsageError) {
        let parsed = try Arguments(arguments, options: AppOptions.names, flags: [], usage: Self.usage)
        guard parsed.positionals.isEmpty else {
            throw UsageError("unexpected argument '\(parsed.positionals[0])'", usage: Self.usage)
        }
        app = try AppOptions(parsed, usage: Self.usage)
    }

    func run() async -> Int32 {
        guard let configuration = app.load() else { return 2 }
        Output.print(configuration.overview(now: Date()))
        return await start(configuration)
    }

    /// Where the app starts once this executable links the function registry and the trigger dispatcher;
    /// until then the report above is all `run` does.
    private func start(_ configuration: AppConfiguration) async -> Int32 {
        Output.print("not started: this build has no function registry or trigger dispatcher yet")
        return 0
    }
}
