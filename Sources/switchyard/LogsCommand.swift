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
            usage: Self.usage)
        guard parsed.positionals.isEmpty else {
            throw UsageError("unexpected argument '\(parsed.positionals[0])'", usage: Self.usage)
        }
        app = try AppOptions(parsed, usage: Self.usage)
        trigger = parsed.value("--trigger")
        function = parsed.value("--function")
        limit = try positiveLimit(parsed, usage: Self.usage) ?? 20
        follow = parsed.has("--follow")
    }

    func run() async -> Int32 {
        var printed = PollFollower<ObjectId>()
        repeat {
            do throws(CommandFailure) {
                if let store = try await app.openStoreForReading() {
                    let records = await read(store)
                    await store.close()
                    for record in printed.unseen(try records.get(), id: \.id, firstLimit: limit) {
                        for line in record.lines { Output.print(line) }
                    }
                } else if !follow {
                    Output.error("no runs recorded yet: \(app.dataDirectory) holds no store")
                }
            } catch {
                Output.error(error.message)
                return error.status
            }
            if follow { try? await Task.sleep(for: PollSchedule.interval) }
        } while follow
        return 0
    }

    private func read(_ store: DocumentStore) async -> Result<[InvocationRecord], CommandFailure> {
        do {
            return .success(
                try await InvocationLog(store: store).records(
                    trigger: trigger, function: function, limit: PollSchedule.window))
        } catch {
            return .failure(CommandFailure("cannot read the invocation log: \(error)", status: 1))
        }
    }
}

/// `--limit N`: a positive count, or nil when not given.
func positiveLimit(_ parsed: Arguments, usage: String) throws(UsageError) -> Int? {
    guard let text = parsed.value("--limit") else { return nil }
    guard let limit = Int(text), limit > 0 else {
        throw UsageError("--limit needs a positive number, not '\(text)'", usage: usage)
    }
    return limit
}
