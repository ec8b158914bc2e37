import Switchyard

/// Which of an app's triggers and functions a test run exercised: every trigger its configuration declares and
/// every function its registry holds, with how often each ran and how many of those runs failed.
///
/// A trigger counts every run it made (its function, webhook, error handler and suspension alert); a function
/// counts its runs by triggers and clients and its calls from other functions (`context.functions.execute`).
///
/// ```swift
/// #expect(app.coverage.unexercisedTriggers.isEmpty)
/// print(app.coverage)  // one line per trigger and function: runs, failures, or "not run"
/// ```
public struct AppCoverage: Sendable, Equatable, CustomStringConvertible {
    public struct Entry: Sendable, Equatable {
        public var name: String
        public var runs: Int
        public var failures: Int

        public init(name: String, runs: Int = 0, failures: Int = 0) {
            self.name = name
            self.runs = runs
            self.failures = failures
        }

        public var isExercised: Bool { runs > 0 }
    }

    /// Every trigger, by name.
    public var triggers: [Entry]
    /// Every registered function, by name.
    public var functions: [Entry]

    public init(triggers: [Entry], functions: [Entry]) {
        self.triggers = triggers.sorted { $0.name < $1.name }
        self.functions = functions.sorted { $0.name < $1.name }
    }

    init(triggerNames: some Sequence<String>, functionNames: some Sequence<String>, counts: RunCoverage.Counts) {
        func entry(_ name: String, _ count: RunCoverage.Count?) -> Entry {
            Entry(name: name, runs: count?.runs ?? 0, failures: count?.failures ?? 0)
        }
        self.init(
            triggers: Set(triggerNames).map { entry($0, counts.triggers[$0]) },
            functions: Set(functionNames).map { entry($0, counts.functions[$0]) })
    }

    /// The triggers that never ran.
    public var unexercisedTriggers: [String] { triggers.filter { !$0.isExercised }.map(\.name) }
    /// The functions that never ran.
    public var unexercisedFunctions: [String] { functions.filter { !$0.isExercised }.map(\.name) }

    public subscript(trigger name: String) -> Entry? { triggers.first { $0.name == name } }
    public subscript(function name: String) -> Entry? { functions.first { $0.name == name } }

    /// This coverage and `other`'s together (several apps of one suite): the union of their triggers and functions,
    /// with the counts of the same name added up.
    public func merged(with other: AppCoverage) -> AppCoverage {
        func merge(_ mine: [Entry], _ theirs: [Entry]) -> [Entry] {
            var byName = Dictionary(uniqueKeysWithValues: mine.map { ($0.name, $0) })
            for entry in theirs {
                byName[entry.name, default: Entry(name: entry.name)].runs += entry.runs
                byName[entry.name, default: Entry(name: entry.name)].failures += entry.failures
            }
            return Array(byName.values)
        }
        return AppCoverage(triggers: merge(triggers, other.triggers), functions: merge(functions, other.functions))
    }

    /// A summary line, then one line per trigger and function.
    public var description: String {
        var lines = ["triggers \(Self.share(triggers)), functions \(Self.share(functions))"]
        let width = (triggers + functions).map(\.name.count).max() ?? 0
        for (kind, entries) in [("trigger ", triggers), ("function", functions)] {
            for entry in entries {
                let name = entry.name.padding(toLength: width, withPad: " ", startingAt: 0)
                lines.append("  \(kind)  \(name)  \(Self.counts(entry))")
            }
        }
        return lines.joined(separator: "\n")
    }

    private static func share(_ entries: [Entry]) -> String {
        let exercised = entries.filter(\.isExercised).count
        guard !entries.isEmpty else { return "0 of 0" }
        return "\(exercised) of \(entries.count) (\(exercised * 100 / entries.count)%)"
    }

    private static func counts(_ entry: Entry) -> String {
        guard entry.isExercised else { return "not run" }
        let runs = entry.runs == 1 ? "1 run" : "\(entry.runs) runs"
        return entry.failures == 0 ? runs : "\(runs), \(entry.failures) failed"
    }
}
