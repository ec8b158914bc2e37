import BSON
import DocumentStore
import Messaging
import Switchyard

/// `switchyard outbox`: prints the push messages the development outbox accepted instead of delivering them.
struct OutboxCommand: Command {
    static let name = "outbox"
    static let summary = "Show the push messages the development outbox recorded"
    static let usage = """
        USAGE: switchyard outbox [--limit N] [--follow] [options]

        Prints the newest messages the app's functions sent through the development outbox, oldest first,
        one Extended JSON document per line: the message name, its target, the FCM request, what each
        platform's app receives ("ios": the APNs payload as userInfo, with aps and gcm.message_id, and the APNs
        headers; "android": the RemoteMessage; "web": the push payload), or the injected error, the
        registered tokens it reached (a topic's or condition's subscribers) with the platforms they registered
        with, and the time. A token registered with no platform gets the iOS and the Android view. Messages sent to the FCM emulator endpoint of
        `switchyard serve` are recorded too. With --follow, keeps printing new messages until interrupted.

        OPTIONS:
          --limit N             How many messages to print first (default 20)
          --follow              Keep printing new messages
          --canonical           Print canonical Extended JSON
        \(AppOptions.dataUsage)
          -h, --help            Show this help
        """

    var app: AppOptions
    var limit: Int
    var follow: Bool
    var mode: ExtendedJSON.Mode

    init(arguments: [String]) throws(UsageError) {
        let parsed = try Arguments(
            arguments, options: AppOptions.dataNames + ["--limit"], flags: ["--follow", "--canonical"],
            takesPositionals: false,
            usage: Self.usage)
        app = try AppOptions(parsed, usage: Self.usage)
        limit = try positiveLimit(parsed, usage: Self.usage) ?? 20
        follow = parsed.has("--follow")
        mode = parsed.has("--canonical") ? .canonical : .relaxed
    }

    func run() async -> Int32 {
        await app.printPolled(
            follow: follow, limit: limit, nothingYet: "no messages recorded yet", id: \OutboxEntry.name,
            read: { store in try await OutboxLog(store: store).entries(limit: PollSchedule.window) },
            print: { entry in Output.print(entry.document.extendedJSON(mode: mode)) })
    }
}
