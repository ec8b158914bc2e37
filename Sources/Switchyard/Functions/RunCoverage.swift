import Synchronization

/// How often each trigger and each registered function ran, and how many of those runs failed: what a test run
/// exercised (`SwitchyardTesting`'s `TestApp.coverage`). An app keeps it only when opened with one, so a served app
/// pays nothing for it. The names it counts are the configuration's triggers and the registry's functions, so it
/// stays as small as the app.
package final class RunCoverage: Sendable {
    package struct Count: Sendable, Equatable {
        package var runs = 0
        package var failures = 0

        package init(runs: Int = 0, failures: Int = 0) {
            self.runs = runs
            self.failures = failures
        }
    }

    package struct Counts: Sendable, Equatable {
        package var triggers: [String: Count] = [:]
        package var functions: [String: Count] = [:]
    }

    private let counts = Mutex(Counts())

    package init() {}

    package var snapshot: Counts { counts.withLock { $0 } }

    /// One run of `function`, for `trigger` when a trigger ran it (its function, webhook, error handler or alert).
    func recordRun(trigger: String?, function: String, failed: Bool) {
        counts.withLock {
            if let trigger { $0.triggers[trigger, default: Count()].add(failed: failed) }
            $0.functions[function, default: Count()].add(failed: failed)
        }
    }

    /// One call of `function` from another function (`context.functions.execute`).
    func recordCall(function: String, failed: Bool) {
        counts.withLock { $0.functions[function, default: Count()].add(failed: failed) }
    }
}

extension RunCoverage.Count {
    fileprivate mutating func add(failed: Bool) {
        runs += 1
        if failed { failures += 1 }
    }
}
