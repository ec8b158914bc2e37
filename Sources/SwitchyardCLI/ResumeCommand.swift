import DocumentStore
import Switchyard
import SwitchyardServer

/// `switchyard resume TRIGGER`: lets a suspended trigger start again when the app next runs.
struct ResumeCommand: Command {
    static let name = "resume"
    static let summary = "Resume a suspended trigger from its resume token, or skip what happened meanwhile"
    static let usage = """
        USAGE: switchyard resume TRIGGER [--from-token | --skip] [options]

        Clears TRIGGER's suspension. While 'switchyard serve' runs on the data directory, the server resumes
        it at once; otherwise it is cleared in the app's data directory, so the trigger runs again when the
        app next starts:

          --from-token   from its saved resume token: the event that failed is delivered again, then
                         everything after it (the default)
          --skip         from the end of the change log now (scheduled triggers: the next fire time):
                         nothing that happened while it was suspended is delivered (Atlas's
                         skipCatchupEvents on resume)

        Exit status: 0 when resumed, 2 for an unknown trigger or one that is not suspended, 1 when the
        data directory is in use or cannot be written.

        OPTIONS:
        \(AppOptions.dataUsage)
          -h, --help            Show this help
        """

    var app: AppOptions
    var trigger: String
    var point: TriggerResumePoint

    init(arguments: [String]) throws(UsageError) {
        let parsed = try Arguments(
            arguments, options: AppOptions.dataNames, flags: ["--from-token", "--skip"], usage: Self.usage)
        guard let trigger = parsed.positionals.first else {
            throw UsageError("missing TRIGGER, the trigger to resume", usage: Self.usage)
        }
        guard parsed.positionals.count == 1 else {
            throw UsageError("unexpected argument '\(parsed.positionals[1])'", usage: Self.usage)
        }
        guard !(parsed.has("--from-token") && parsed.has("--skip")) else {
            throw UsageError("--from-token and --skip exclude each other", usage: Self.usage)
        }
        app = try AppOptions(parsed, usage: Self.usage)
        self.trigger = trigger
        point = parsed.has("--skip") ? .now : .savedToken
    }

    private var resumedLine: String {
        "resumed \(trigger) \(point == .now ? "skipping what happened while it was suspended" : "from its resume token")"
    }

    func run() async -> Int32 {
        guard let configuration = app.load() else { return 2 }
        guard configuration.triggers.contains(where: { $0.name == trigger }) else {
            let hint = ClosestMatch.suggestion(for: trigger, among: configuration.triggers.map(\.name)).map {
                " (did you mean '\($0)'?)"
            }
            Output.error("switchyard resume: no trigger named '\(trigger)'\(hint ?? "")")
            return 2
        }
        if let server = AdminEndpoint.running(dataDirectory: app.dataDirectory) {
            do {
                _ = try await server.resume(trigger: trigger, fromToken: point != .now)
            } catch let refusal as AdminEndpoint.Refusal {
                Output.error("switchyard resume: \(refusal.message)")
                return ["TriggerNotFound", "InvalidTriggerState"].contains(refusal.code) ? 2 : 1
            } catch {
                Output.error("switchyard resume: the server at \(server.url) did not answer: \(error)")
                return 1
            }
            Output.print(resumedLine)
            return 0
        }
        let claim: DataDirectoryClaim
        let store: DocumentStore
        do {
            claim = try DataDirectoryClaim.take(app.dataDirectory)
        } catch {
            Output.error("switchyard resume: \(error)")
            return 1
        }
        do {
            store = try await DocumentStore.open(configuration.store(dataDirectory: app.dataDirectory))
        } catch {
            claim.discard()
            Output.error("switchyard resume: \(error)")
            return 1
        }
        let runtime = TriggerRuntime(store: store, definitions: configuration.triggers) { _ in }
        let outcome = await Result { try await runtime.resumeSaved(trigger: trigger, from: point) }
        await store.close()
        // A trigger that is not suspended was not resumed: nothing of this run is left where there was nothing.
        if case .failure = outcome { claim.discard() }
        withExtendedLifetime(claim) {}
        switch outcome {
        case .success:
            Output.print(resumedLine)
            return 0
        case .failure(let error as TriggerRuntimeError):
            Output.error("switchyard resume: \(error.message)")
            return error.code == .invalidState || error.code == .unknownTrigger ? 2 : 1
        case .failure(let error):
            Output.error("switchyard resume: \(error)")
            return 1
        }
    }
}
