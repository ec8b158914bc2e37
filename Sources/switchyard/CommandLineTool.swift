/// The `switchyard` entry point: global options, then dispatch to a subcommand.
enum CommandLineTool {
    static let version = "0.1.0"

    static var commands: [any Command.Type] { [EJSONCommand.self] }

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

    static func run(_ arguments: [String]) -> Int32 {
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
            Output.error("switchyard: \(what) '\(first)'\n\n\(usage)")
            return 2
        }
        let rest = Array(arguments.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            Output.print(command.usage)
            return 0
        }
        do {
            return try command.init(arguments: rest).run()
        } catch {
            Output.error("switchyard \(command.name): \(error.message)\n\n\(error.usage)")
            return 2
        }
    }
}

extension String {
    fileprivate func padding(to width: Int) -> String {
        self + String(repeating: " ", count: max(0, width - count))
    }
}
