/// One `switchyard` subcommand. Commands parse their own arguments and do their work through the libraries;
/// adding one means a new type here and an entry in `CommandLineTool.commands`.
protocol Command {
    /// The word after `switchyard` that selects this command.
    static var name: String { get }
    /// One line for the command list in `switchyard --help`.
    static var summary: String { get }
    /// The command's own help text.
    static var usage: String { get }

    /// Reads the arguments after the command name.
    init(arguments: [String]) throws(UsageError)

    /// Runs the command and returns the process exit status (0 success, 1 failure, 2 bad input). A thrown
    /// failure is printed to standard error and its status becomes the exit status.
    func run() async throws(CommandFailure) -> Int32
}

/// Wrong arguments: the message is printed with the usage text, and the process exits with status 2.
struct UsageError: Error {
    var message: String
    /// The usage text to print after the message (the command's, or the tool's).
    var usage: String

    init(_ message: String, usage: String) {
        self.message = message
        self.usage = usage
    }
}
