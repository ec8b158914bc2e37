import BSON
import DocumentStore
import Switchyard

/// `switchyard logs`: prints the invocation log (trigger attempts and calls), newest last.
struct LogsCommand: Command {
    static let name = "logs"
    static let summary = "Show function runs from the invocation log (outcome, duration, log lines, errors)"
    static let usage = """
        USAGE: switchyard logs [--trigger NAME] [--function NAME] [--limit N] [--follow] [options]

        Prints the newest function runs recorded in the app's data directory, oldest first: each run's
        start (UTC), trigger and function (or the calling user), attempt, outcome and duration, then its
        log lines and error, indented. With --follow, keeps printing runs as they are recorded until
        interrupted.

        OPTIONS:
          --trigger NAME        Only runs of this trigger
          --function NAME       Only runs of this function
          --limit N             How many runs to print first (default 20)
          --follow              Keep printing new runs
        \(AppOptions.dataUsage)
          -h, --help            Show this help
        """

    var app: AppOptions
    var trigger: String?
    var function: String?
    var limit: Int
    var follow: Bool

    init(arguments: [String]) throws(UsageError) {
        let parsed = try Arguments(
            arguments, options: AppOptions.dataNames + ["--trigger", "--function", "--limit"], flags: ["--follow"],
            takesPositionals: false,
            usage: Self.usage)
        app = try AppOptions(parsed, usage: Self.usage)
        trigger = parsed.value("--trigger")
        function = parsed.value("--function")
        limit = try positiveLimit(parsed, usage: Self.usage) ?? 20
        follow = parsed.has("--follow")
    }

    func run() async -> Int32 {
        await app.printPolled(
            follow: follow, limit: limit, nothingYet: "no runs recorded yet", id: \InvocationRecord.id,
            read: { store in
                try await InvocationLog(store: store).records(
                    trigger: trigger, function: function, limit: PollSchedule.window)
            },
            print: { record in for line in record.lines { Output.print(line) } })
    }
}
