import Switchyard

/// The `switchyard` command line: global options, then dispatch to a subcommand. Every executable that links an
/// app's functions runs it: `switchyard` with the example app, and each app made by `switchyard init`.
public enum CommandLineTool {
    public static let version = "0.1.0"

    /// The functions linked into the running executable, which every command that loads the app uses.
    @TaskLocal static var registry = FunctionRegistry()

    static var commands: [any Command.Type] {
        [
            ValidateCommand.self, ServeCommand.self, RunCommand.self, CallCommand.self, FireCommand.self,
            ImportCommand.self,
            LogsCommand.self, TriggersCommand.self, ResumeCommand.self, DeadLettersCommand.self,
            RedeliverCommand.self, OutboxCommand.self,
            GenerateEventCommand.self, DataCommand.self, InitCommand.self,
            EJSONCommand.self, UsersCommand.self, RecordCommand.self, ReplayCommand.self,
        ]
    }

    static var usage: String {
        let width = commands.map { $0.name.count }.max() ?? 0
        let list = commands.map { "  \($0.name.padding(to: width))  \($0.summary)" }.joined(separator: "\n")
        return """
            USAGE: switchyard <command> [options]
                   switchyard --help | --version

            COMMANDS:
            \(list)

            Run 'switchyard <command> --help' for a command's options.
            """
    }

    /// Runs the command `arguments` name (the process's arguments without the executable) against the app whose
    /// functions are in `registry`; returns the exit status.
    public static func run(_ arguments: [String], registry: FunctionRegistry) async -> Int32 {
        await $registry.withValue(registry) { await run(arguments) }
    }

    private static func run(_ arguments: [String]) async -> Int32 {
        guard let first = arguments.first else {
            Output.error(usage)
            return 2
        }
        switch first {
        case "--help", "-h", "help":
            Output.print(usage)
            return 0
        case "--version":
            Output.print("switchyard \(version)")
            return 0
        default:
            break
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            let what = first.hasPrefix("-") ? "unknown option" : "unknown command"
            // Not `map(\.name)`: a key path to a static member through `any Command.Type` crashes swift-frontend 6.3.1.
            let hint = ClosestMatch.suggestion(for: first, among: commands.map { $0.name }).map {
                " (did you mean '\($0)'?)"
            }
            Output.error("switchyard: \(what) '\(first)'\(hint ?? "")\n\n\(usage)")
            return 2
        }
        let rest = Array(arguments.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            Output.print(command.usage)
            return 0
        }
        let parsed: any Command
        do {
            parsed = try command.init(arguments: rest)
        } catch {
            Output.error("switchyard \(command.name): \(error.message)\n\n\(error.usage)")
            return 2
        }
        do {
            return try await parsed.run()
        } catch {
            Output.error(error.message)
            return error.status
        }
    }
}

extension String {
    fileprivate func padding(to width: Int) -> String {
        self + String(repeating: " ", count: max(0, width - count))
    }
}
