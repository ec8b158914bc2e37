import Switchyard

/// A command's arguments, read against the options it accepts: `--name VALUE` or `--name=VALUE` for options
/// with a value, bare `--name` for flags, everything else positional (`--` ends the options, `-` is positional).
/// A command that takes only options says so with `takesPositionals: false`.
struct Arguments {
    private var values: [String: String] = [:]
    private var flags: Set<String> = []
    private(set) var positionals: [String] = []

    init(
        _ arguments: [String], options: [String], flags knownFlags: [String], takesPositionals: Bool = true,
        usage: String
    ) throws(UsageError) {
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard !optionsEnded, argument.hasPrefix("-"), argument != "-" else {
                guard takesPositionals else { throw UsageError("unexpected argument '\(argument)'", usage: usage) }
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            if options.contains(name) {
                let value: String
                if parts.count == 2 {
                    value = String(parts[1])
                } else if index < arguments.count {
                    value = arguments[index]
                    index += 1
                } else {
                    throw UsageError("\(name) needs a value", usage: usage)
                }
                guard values.updateValue(value, forKey: name) == nil else {
                    throw UsageError("\(name) is given more than once", usage: usage)
                }
            } else if knownFlags.contains(name), parts.count == 1 {
                flags.insert(name)
            } else if knownFlags.contains(name) {
                throw UsageError("\(name) takes no value", usage: usage)
            } else {
                let hint = ClosestMatch.suggestion(for: name, among: options + knownFlags).map {
                    " (did you mean '\($0)'?)"
                }
                throw UsageError("unknown option '\(name)'\(hint ?? "")", usage: usage)
            }
        }
    }

    func value(_ option: String) -> String? { values[option] }

    func has(_ flag: String) -> Bool { flags.contains(flag) }
}
