import Foundation
import Switchyard

/// `switchyard run`: loads the app (validating it) and reports what it runs.
struct RunCommand: Command {
    static let name = "run"
    static let summary = "Start the app: report its triggers and values, then run them until Ctrl-C"
    static let usage = """
        USAGE: switchyard run [options]

        Loads and validates the app's configuration against its functions, lists each trigger with its
        type, what fires it (collection and operation types, cron schedule with the next fire time in UTC,
        or authentication operation and providers), the function it calls and whether it is disabled, and
        each value (secrets print as <secret>). Then starts the triggers: each catches up from its saved
        resume token and follows new changes until Ctrl-C (or SIGTERM), when running functions finish and
        the triggers' state is saved. The app's data lives in --data-dir, which 'call', 'fire' and
        'resume' cannot use while the app runs.

        Configuration problems print as FILE:LINE:COLUMN: message, exit status 2; a failure to start
        exits with status 1.

        OPTIONS:
        \(AppOptions.dataUsage)
          -h, --help            Show this help
        """

    var app: AppOptions

    init(arguments: [String]) throws(UsageError) {
        app = try AppOptions(only: arguments, options: AppOptions.dataNames, usage: Self.usage)
    }

    func run() async throws(CommandFailure) -> Int32 {
        let stop = StopSignal()
        let opened = try await app.openApp()
        let app = opened.app
        Output.print(app.configuration.overview(now: Date()))
        do {
            try await app.start()
        } catch {
            await opened.stop()
            Output.error("switchyard run: cannot start the triggers: \(error)")
            return 1
        }
        Output.print("running; data in \(self.app.dataDirectory) (Ctrl-C stops)")
        let signal = await stop.wait()
        Output.print("stopping (\(signal == SIGINT ? "interrupt" : "terminate"))")
        await opened.stop()
        Output.print("stopped")
        return 0
    }
}
