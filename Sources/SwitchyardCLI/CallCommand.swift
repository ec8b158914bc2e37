import BSON
import Switchyard

/// `switchyard call FUNCTION ARGS…`: runs a function of the app and prints what it returns.
struct CallCommand: Command {
    static let name = "call"
    static let summary = "Call a function with Extended JSON arguments; print its result and log lines"
    static let usage = """
        USAGE: switchyard call FUNCTION [ARGUMENT ...] [--user ID] [options]

        Opens the app (its configuration and its data directory) and calls FUNCTION with each ARGUMENT
        read as an Extended JSON value: 42, '"text"', '{"_id": {"$oid": "…"}}', '[1, 2]'. Prints the
        result as relaxed Extended JSON on standard output and the function's log lines on standard error.
        Put '--' before arguments that start with '-'.

        The call is a client's call: private functions are refused and canEvaluate rules apply. It runs
        as the system user, or as the user --user names.

        Exit status: 0 when the function returned, 1 when it failed, 2 for an unknown function, invalid
        arguments or an invalid configuration.

        OPTIONS:
          --user ID             Call as this user instead of the system user
          --canonical           Print the result as canonical Extended JSON
        \(AppOptions.dataUsage)
          -h, --help            Show this help
        """

    var app: AppOptions
    var function: String
    var arguments: [BSON]
    var user: FunctionUser
    var mode: ExtendedJSON.Mode

    init(arguments: [String]) throws(UsageError) {
        let parsed = try Arguments(
            arguments, options: AppOptions.dataNames + ["--user"], flags: ["--canonical"], usage: Self.usage)
        guard let function = parsed.positionals.first else {
            throw UsageError("missing FUNCTION, the function to call", usage: Self.usage)
        }
        var values: [BSON] = []
        for (index, text) in parsed.positionals.dropFirst().enumerated() {
            do {
                values.append(try ExtendedJSON.parseValue(text))
            } catch {
                throw UsageError(
                    "argument \(index + 1): \(error.message) at column \(error.column) (arguments are Extended JSON: quote strings as '\"text\"')",
                    usage: Self.usage)
            }
        }
        app = try AppOptions(parsed, usage: Self.usage)
        self.function = function
        self.arguments = values
        user = parsed.value("--user").map { FunctionUser(id: $0) } ?? .system
        mode = parsed.has("--canonical") ? .canonical : .relaxed
    }

    func run() async throws(CommandFailure) -> Int32 {
        let configuration = try app.configuration()
        do {
            try CommandLineTool.registry.checkCallable(function)
        } catch {
            let hint = ClosestMatch.suggestion(for: function, among: CommandLineTool.registry.callableNames).map {
                " (did you mean '\($0)'?)"
            }
            Output.error("switchyard call: \(error)\(hint ?? "")")
            return 2
        }
        let opened = try await app.openApp(configuration)
        let records = opened.app.invocations.follow()
        let result: Result<BSON, FunctionCallError>
        do {
            result = .success(
                try await opened.app.call(function: function, arguments: arguments, user: user))
        } catch {
            result = .failure(error)
        }
        await opened.stop()
        for await record in records {
            for line in record.logs { Output.error("log: \(line)") }
        }
        switch result {
        case .success(let value):
            Output.print(value.extendedJSON(mode: mode))
            return 0
        case .failure(let error):
            Output.error("switchyard call: \(error)")
            return error.code == .functionNotFound ? 2 : 1
        }
    }
}
