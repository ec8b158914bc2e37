import Switchyard

/// `switchyard validate`: loads the app's configuration as `run` would and reports every problem at once.
struct ValidateCommand: Command {
    static let name = "validate"
    static let summary = "Check triggers.yaml, values.json, environment files and secrets; list every problem"
    static let usage = """
        USAGE: switchyard validate [--config DIR] [--environment NAME]

        Loads the app's configuration and checks all of it: the YAML and JSON, every trigger's settings,
        cron schedules, values, and that each secret a value refers to is set. Prints
        'ok: N triggers, M values (environment: NAME)', or each problem as FILE:LINE:COLUMN: message on
        standard error with exit status 2.

        OPTIONS:
        \(AppOptions.usage)
          -h, --help            Show this help
        """

    var app: AppOptions

    init(arguments: [String]) throws(UsageError) {
        app = try AppOptions(only: arguments, options: AppOptions.names, usage: Self.usage)
    }

    func run() -> Int32 {
        guard let configuration = app.load() else { return 2 }
        Output.print(
            "ok: \(counted(configuration.triggers.count, "trigger")), \(counted(configuration.values.names.count, "value")) "
                + "(environment: \(configuration.environment.rawValue))")
        return 0
    }
}

/// `1 trigger`, `2 triggers`.
func counted(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
}
