import Synchronization
import Testing

/// A suite or test trait that prints, when its suite or test ends, the coverage of every `TestApp` started in it
/// (`AppCoverage`: which triggers and functions ran, merged across the apps), so `swift test` shows what a suite
/// left unexercised:
///
/// ```swift
/// @Suite(.coverageReport) struct BookTriggerTests { … }
/// ```
public struct CoverageReport: SuiteTrait, TestTrait, TestScoping {
    private let report: @Sendable (String) -> Void

    /// A report handed to `report` (printed by default) when the suite or test ends.
    public init(report: @escaping @Sendable (String) -> Void = { print($0) }) {
        self.report = report
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let collector = CoverageCollector(parent: CoverageCollector.current)
        defer { report("Switchyard coverage of \(test.name): \(collector.coverage)") }
        try await CoverageCollector.$current.withValue(collector) { try await function() }
    }
}

extension Trait where Self == CoverageReport {
    /// Prints the coverage of the `TestApp`s started in this suite or test when it ends.
    public static var coverageReport: Self { CoverageReport() }
}

/// The apps started within a `CoverageReport`'s scope (and its enclosing ones'): a coverage source per app.
final class CoverageCollector: Sendable {
    @TaskLocal static var current: CoverageCollector?

    private let parent: CoverageCollector?
    private let apps = Mutex<[@Sendable () -> AppCoverage]>([])

    init(parent: CoverageCollector?) {
        self.parent = parent
    }

    /// Counts `app`'s coverage in this scope and every enclosing one.
    func add(_ coverage: @escaping @Sendable () -> AppCoverage) {
        apps.withLock { $0.append(coverage) }
        parent?.add(coverage)
    }

    var coverage: AppCoverage {
        apps.withLock { $0 }.reduce(AppCoverage(triggers: [], functions: [])) { $0.merged(with: $1()) }
    }
}
