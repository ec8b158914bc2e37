import BSON
import DocumentStore
import Foundation

/// What every function context of one app shares, and the one place executions run: with the function's
/// time limit, a bounded log, and an invocation record written afterwards.
final class FunctionRuntime: Sendable {
    let registry: FunctionRegistry
    let services: FunctionContext.Services
    let invocationLog: InvocationLog
    /// Counts what ran, when the app was opened to measure a test run's coverage.
    let coverage: RunCoverage?
    /// Where run records go on from the invocation log (`logForwarders:`).
    let forwarding = LogForwarding()
    private let current: ReadMostly<Loaded>

    /// What a configuration gives every execution; replaced whole when the app reloads its configuration, so
    /// each execution sees one configuration from start to end. A class, so that taking it under the lock at
    /// every call costs one retain rather than a copy of every field (every served call reads it).
    final class Loaded: Sendable {
        let definition: AppDefinition
        let values: FunctionContext.Values
        let environment: FunctionContext.Environment
        let scrubber: SecretScrubber
        /// The plain values (secrets left out), as data access rules see them under `%%values`.
        let ruleValues: BSONDocument
        /// The secrets that sign the triggers' webhook requests, by name.
        let webhookSecrets: [String: Secret]

        init(_ configuration: AppConfiguration) {
            definition = configuration.definition
            values = FunctionContext.Values(values: configuration.values)
            environment = FunctionContext.Environment(tag: configuration.environment.rawValue, values: values)
            scrubber = SecretScrubber(
                secrets: configuration.values.names.compactMap { name -> Secret? in
                    if case .secret(let secret)? = configuration.values[name] { return secret }
                    return nil
                } + configuration.endpointSecrets.values + configuration.webhookSecrets.values)
            webhookSecrets = configuration.webhookSecrets
            var plain = BSONDocument()
            for name in configuration.values.names {
                if case .plain(let value)? = configuration.values[name] { plain.append(name, value) }
            }
            ruleValues = plain
        }

        /// The data access rules as `user`'s requests meet them.
        func dataAccess(for user: FunctionUser) -> UserDataAccess {
            UserDataAccess(rules: definition.rules, user: user, values: ruleValues, environment: environment.tag)
        }

        func settings(for function: String) -> FunctionSettings {
            definition.functions[function] ?? FunctionSettings()
        }
    }

    init(
        registry: FunctionRegistry, configuration: AppConfiguration, services: FunctionContext.Services,
        invocationLog: InvocationLog, coverage: RunCoverage? = nil
    ) {
        self.registry = registry
        self.services = services
        self.invocationLog = invocationLog
        self.coverage = coverage
        current = ReadMostly(Loaded(configuration))
        forwarding.start(configuration.definition.logForwarders) { [weak self] action, records in
            guard let self else { throw FunctionCallError(code: .functionExecutionError, message: "the app stopped") }
            try await self.deliver(records, to: action)
        }
    }

    var loaded: Loaded { current.read { $0 } }

    /// Later executions use `configuration`; running ones finish with what they started with.
    func reload(_ configuration: AppConfiguration) async {
        let loaded = Loaded(configuration)
        current.write { $0 = loaded }
        await forwarding.reload(configuration.definition.logForwarders)
    }

    func settings(for function: String) -> FunctionSettings {
        loaded.settings(for: function)
    }

    /// How one execution ended; messages are scrubbed of secrets.
    enum Outcome<Value: Sendable>: Sendable {
        case success(Value)
        /// The function threw; `storageFailure` is the failure of the store's storage behind what it threw, if any.
        case failure(String, storageFailure: StoreError?)
        case timeout(Duration)

        /// The value a caller of the callable `function` gets, or the error it answers: the function's own
        /// failure (with the storage failure behind it) or its time limit.
        func value(of function: String) throws(FunctionCallError) -> Value {
            switch self {
            case .success(let value): return value
            case .failure(let message, let storageFailure):
                throw FunctionCallError(code: .functionExecutionError, message: message, storageFailure: storageFailure)
            case .timeout(let limit): throw .timedOut(function, after: limit)
            }
        }
    }

    /// Who an execution is for, as its record tells it.
    struct Origin: Sendable {
        var function: String
        var trigger: String?
        var eventId: String?
        var attempt = 1
        /// What ran it, as log forwarders filter it.
        var source = LogSource.function
    }

    /// One execution, as its record tells it. A class: handing it to `ended` copies one reference, not every field.
    final class Run: Sendable {
        let origin: Origin
        let user: FunctionUser
        let limit: Duration
        let lines: InvocationLogLines
        /// The id its record gets.
        let id = ObjectId()
        /// The run whose outbox entries this one's sends count as (`FunctionRunScope`): its caller's, if any.
        let scope = FunctionRunScope.invocationId
        let start = Date()
        let started = ContinuousClock.now

        init(origin: Origin, user: FunctionUser, limit: Duration, lines: InvocationLogLines) {
            self.origin = origin
            self.user = user
            self.limit = limit
            self.lines = lines
        }

        /// The record of the run, closing its lines.
        func record(_ outcome: InvocationRecord.Outcome, duration: Duration, error: String? = nil) -> InvocationRecord {
            InvocationRecord(
                id: id, trigger: origin.trigger, function: origin.function, eventId: origin.eventId,
                attempt: origin.attempt,
                userId: user.id, start: start, duration: duration, outcome: outcome,
                error: outcome == .timeout ? FunctionCallError.timedOut(origin.function, after: limit).message : error,
                logs: lines.close())
        }
    }

    /// Runs `body` with `input` as `user` within the function's time limit (`FunctionDeadline`) and records the
    /// execution, with `loaded` (by default the configuration in effect now). A run past its limit is recorded as
    /// timed out, with the lines it logged so far, before its caller has the answer. The input is handed to `body`
    /// rather than captured, so that a callable function is run as it was registered, without a closure around it.
    nonisolated(nonsending) func run<Input: Sendable, Value: Sendable>(
        _ origin: Origin, user: FunctionUser, runningAsSystem: Bool, loaded: Loaded? = nil,
        exchange: EndpointExchange? = nil, input: Input,
        _ body: @escaping @Sendable (Input, FunctionContext) async throws -> Value
    ) async -> Outcome<Value> {
        let loaded = loaded ?? self.loaded
        let run = Run(
            origin: origin, user: user, limit: loaded.definition.timeout(for: origin.function),
            lines: InvocationLogLines(scrubber: loaded.scrubber))
        let context = FunctionContext(
            runtime: self, loaded: loaded, user: user, runningAsSystem: runningAsSystem, depth: 0, lines: run.lines,
            exchange: exchange)
        // The records of what the run did (the outbox's sends) commit with its writes (`CarriedInserts`); its writes'
        // change-log entries are tagged with the run they count as (`TriggerRecorder` reads them back).
        let invocationId = run.scope ?? run.id
        let deadlineOutcome = await FunctionDeadline.run(limit: run.limit) {
            try await FunctionRunScope.$invocationId.withValue(invocationId) {
                try await StoreWriteOrigin.$current.withValue(invocationId.hex) {
                    try await CarriedInserts.carrying { try await body(input, context) }
                }
            }
        }
        let (outcome, record) = Self.ended(
            run, duration: run.started.duration(to: .now), deadlineOutcome, scrubber: loaded.scrubber)
        coverage?.recordRun(trigger: origin.trigger, function: origin.function, failed: record.outcome != .success)
        forwarding.offer(record, source: origin.source)
        if let backlog = invocationLog.handOver(record) { await backlog.wait() }
        return outcome
    }

    /// How a run ended, and its record. Out of line and synchronous: its temporaries would otherwise be room in
    /// the frame of `run`, which every call allocates from its task.
    @inline(never)
    private static func ended<Value: Sendable>(
        _ run: Run, duration: Duration, _ deadlineOutcome: FunctionDeadline.Outcome<Value>, scrubber: SecretScrubber
    ) -> (Outcome<Value>, InvocationRecord) {
        switch deadlineOutcome {
        case .finished(.success(let value)):
            return (.success(value), run.record(.success, duration: duration))
        case .finished(.failure(let failure)):
            let message = scrubber.scrub(String(describing: failure))
            return (
                .failure(message, storageFailure: StoreError.storageFailure(causing: failure)),
                run.record(.failure, duration: duration, error: message)
            )
        case .timedOut:
            return (.timeout(run.limit), run.record(.timeout, duration: duration))
        }
    }
}
