import BSON
import Switchyard
import SwitchyardServer

/// `switchyard redeliver ID`: runs a dead letter's trigger function again on its original event.
struct RedeliverCommand: Command {
    static let name = "redeliver"
    static let summary = "Deliver a dead letter's original event to its trigger's function again"
    static let usage = """
        USAGE: switchyard redeliver ID [options]

        Runs the trigger's function on the dead letter's original event again, with the trigger's retries
        (attempts counted on from the letter's). On success the letter leaves the queue; on failure it stays,
        with its attempts and last error updated. ID is the letter's id as 'switchyard dead-letters' prints it.
        While 'switchyard serve' runs on the data directory, the server redelivers it; otherwise the app is
        opened here.

        Exit status: 0 when delivered, 1 when the function failed again (or the data directory is in use),
        2 for an id that is not a dead letter's.

        OPTIONS:
        \(AppOptions.dataUsage)
          -h, --help            Show this help
        """

    var app: AppOptions
    var id: ObjectId

    init(arguments: [String]) throws(UsageError) {
        let parsed = try Arguments(arguments, options: AppOptions.dataNames, flags: [], usage: Self.usage)
        guard let text = parsed.positionals.first else {
            throw UsageError(
                "missing ID, the dead letter to redeliver (switchyard dead-letters lists them)", usage: Self.usage)
        }
        guard parsed.positionals.count == 1 else {
            throw UsageError("unexpected argument '\(parsed.positionals[1])'", usage: Self.usage)
        }
        guard let id = ObjectId(hex: text) else {
            throw UsageError("a dead letter's id is 24 hex digits, not '\(text)'", usage: Self.usage)
        }
        app = try AppOptions(parsed, usage: Self.usage)
        self.id = id
    }

    func run() async throws(CommandFailure) -> Int32 {
        let configuration = try app.configuration()
        if let server = AdminEndpoint.running(dataDirectory: app.dataDirectory) {
            do {
                try await server.redeliver(id)
            } catch let refusal as AdminEndpoint.Refusal {
                throw CommandFailure("switchyard redeliver: \(refusal.message)", status: refusal.status == 404 ? 2 : 1)
            } catch {
                throw CommandFailure(
                    "switchyard redeliver: the server at \(server.url) did not answer: \(error)", status: 1)
            }
            Output.print("redelivered \(id.hex)")
            return 0
        }
        let opened = try await app.openApp(configuration)
        let outcome = await Result { try await opened.app.triggers.redeliver(deadLetterId: id) }
        await opened.stop()
        switch outcome {
        case .success:
            Output.print("redelivered \(id.hex)")
            return 0
        case .failure(let error as TriggerRuntimeError):
            throw CommandFailure(
                "switchyard redeliver: \(error.message)", status: error.code == .deadLetterNotFound ? 2 : 1)
        case .failure(let error):
            throw CommandFailure("switchyard redeliver: \(error)", status: 1)
        }
    }
}
