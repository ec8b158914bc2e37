import BSON
import Foundation

/// What every function context of one app shares, and the one place executions run: with the function's
/// time limit, a bounded log, and an invocation record written afterwards.
final class FunctionRuntime: Sendable {
    let registry: FunctionRegistry
    let services: FunctionContext.Services
    let invocationLog: InvocationLog
    private let current: ReadMostly<Loaded>

    /// What a configuration gives every execution; replaced whole when the app reloads its configuration, so
    /// each execution sees one configuration from start to end. A class, so that taking it under the lock at
    /// every call costs one retain rather than a copy of every field (every served call reads it).
    final class Loaded: Sendable {
        let definition: AppDefinition
        let values: FunctionContext.Values
        let environment: FunctionContext.Environment
        let scrubber: SecretScrubber

        init(_ configuration: AppConfiguration) {
            definition = configuration.definition
            values = FunctionContext.Values(values: configuration.values)
            environment = FunctionContext.Environment(tag: configuration.environment.rawValue, values: values)
            scrubber = SecretScrubber(values: configuration.values)
        }

        func settings(for function: String) -> FunctionSettings {
            definition.functions[function] ?? FunctionSettings()
        }
    }

    init(
        registry: FunctionRegistry, configuration: AppConfiguration, services: FunctionContext.Services,
        invocationLog: InvocationLog
    ) {
        self.registry = registry
        self.services = services
        self.invocationLog = invocationLog
        current = ReadMostly(Loaded(configuration))
    }

    var loaded: Loaded { current.read { $0 } }

    /// Later executions use `configuration`; running ones finish with what they started with.
    func reload(_ configuration: AppConfiguration) {
        let loaded = Loaded(configuration)
        current.write { $0 = loaded }
    }

    func settings(for function: String) -> FunctionSettings {
        loaded.settings(for: function)
    }

    /// How one execution ended; messages are scrubbed of secrets.
    enum Outcome<Value: Sendable>: Sendable {
        case success(Value)
        case failure(String)
        case timeout(Duration)
    }

    /// Who an execution is for, as its record tells it.
    struct Origin: Sendable {
        var function: String
        var trigger: String?
        var eventId: String?
        var attempt = 1
    }

    /// Runs `body` as `user` within the function's time limit and records the execution, with `loaded` (by
    /// default the configuration in effect now).
    nonisolated(nonsending) func run<Value: Sendable>(
        _ origin: Origin, user: FunctionUser, runningAsSystem: Bool, loaded: Loaded? = nil,
        _ body: @escaping @Sendable (FunctionContext) async throws -> Value
    ) async -> Outcome<Value> {
        let loaded = loaded ?? self.loaded
        let scrubber = loaded.scrubber
        let lines = InvocationLogLines(scrubber: scrubber)
        let context = FunctionContext(
            runtime: self, loaded: loaded, user: user, runningAsSystem: runningAsSystem, depth: 0, lines: lines)
        let limit = loaded.definition.timeout(for: origin.function)
        let start = Date()
        let clock = ContinuousClock()
        let started = clock.now
        let deadlineOutcome = await FunctionDeadline.run(limit: limit) { try await body(context) }
        let duration = started.duration(to: clock.now)
        let (outcome, record) = Self.ended(
            origin, user: user, start: start, duration: duration, limit: limit, deadlineOutcome, lines: lines,
            scrubber: scrubber)
        await invocationLog.record(record)
        return outcome
    }

    /// How a run ended, and its record. Out of line and synchronous: its temporaries would otherwise be room in
    /// the frame of `run`, which every call allocates from its task.
    @inline(never)
    private static func ended<Value: Sendable>(
        _ origin: Origin, user: FunctionUser, start: Date, duration: Duration, limit: Duration,
        _ deadlineOutcome: FunctionDeadline.Outcome<Value>, lines: InvocationLogLines, scrubber: SecretScrubber
    ) -> (Outcome<Value>, InvocationRecord) {
        let outcome: Outcome<Value>
        let ending: InvocationRecord.Outcome
        var error: String?
        switch deadlineOutcome {
        case .finished(.success(let value)):
            (outcome, ending) = (.success(value), .success)
        case .finished(.failure(let failure)):
            let message = scrubber.scrub(String(describing: failure))
            (outcome, ending, error) = (.failure(message), .failure, message)
        case .timedOut:
            (outcome, ending) = (.timeout(limit), .timeout)
            error = FunctionCallError.timedOut(origin.function, after: limit).message
        }
        let record = InvocationRecord(
            trigger: origin.trigger, function: origin.function, eventId: origin.eventId, attempt: origin.attempt,
            userId: user.id, start: start, duration: duration, outcome: ending, error: error, logs: lines.close())
        return (outcome, record)
    }
}
