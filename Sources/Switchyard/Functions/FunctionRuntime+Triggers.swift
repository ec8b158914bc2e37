import BSON
import DocumentStore

extension FunctionRuntime {
    /// Runs a trigger's function for one attempt as the system user, recording it; throws when the attempt
    /// failed or timed out, so the dispatcher retries: a `FunctionCallError`, or the `StoreError` (told without
    /// paths) when the store's storage failed under the function, which the dispatcher waits out.
    func runTrigger(_ invocation: TriggerInvocation) async throws {
        do {
            if let webhook = invocation.trigger.webhook {
                try await post(invocation, to: webhook)
            } else {
                try await runTriggerFunction(invocation)
            }
        } catch {
            if invocation.isLastAttempt, let handler = invocation.trigger.onFailure {
                await runFailureHandler(handler, invocation: invocation, error: error)
            }
            throw error
        }
    }

    private func runTriggerFunction(_ invocation: TriggerInvocation) async throws {
        let trigger = invocation.trigger
        let function = registry[trigger.function]
        let origin = Origin(
            function: trigger.function, trigger: trigger.name, eventId: invocation.eventId,
            attempt: invocation.attempt, source: LogSource(trigger: trigger.kind))
        let body: @Sendable ((), FunctionContext) async throws -> Void
        switch (function, invocation.input) {
        case (.database(let run)?, .database(let event)): body = { try await run(event, $1) }
        case (.scheduled(let run)?, .scheduled(let event)): body = { try await run(event, $1) }
        case (.authentication(let run)?, .authentication(let event)): body = { try await run(event, $1) }
        case (nil, _):
            // Loading checks this; a trigger handed in from elsewhere still gets a recorded, retried failure.
            body = { _, _ in throw FunctionCallError.notFound(trigger.function) }
        case (let function?, _):
            let kind = function.kind
            body = { _, _ in
                throw FunctionCallError(
                    code: .functionNotFound,
                    message:
                        "trigger '\(trigger.name)' is \(FunctionKind(trigger: trigger.kind).triggerPhrase ?? "a trigger") but function '\(trigger.function)' is \(kind.phrase)"
                )
            }
        }
        let outcome = await run(origin, user: .system, runningAsSystem: true, input: (), body)
        switch outcome {
        case .success: return
        case .failure(_, let storageFailure?):
            throw storageFailure
        case .failure(let message, nil):
            throw FunctionCallError(code: .functionExecutionError, message: message)
        case .timeout(let limit):
            throw FunctionCallError.timedOut(trigger.function, after: limit)
        }
    }

    /// Tells `trigger`'s `onSuspend` of its suspension, `{trigger, type, function, reason, code?, failedEventId?,
    /// time, resumesWhenStorageReturns}`: runs the callable as the system user with it as its one argument, or posts
    /// it to the webhook once; recorded as a run of the trigger. A function that is missing or not callable, or a
    /// post that is not answered 2xx, is recorded as failed.
    func runSuspensionAlert(trigger: TriggerDefinition, suspension: TriggerSuspension) async {
        var argument: BSONDocument = [
            "trigger": .string(trigger.name), "type": .string(trigger.kind.typeName),
            "function": .string(trigger.function), "reason": .string(suspension.reason),
        ]
        if let code = suspension.code { argument.append("code", .int64(Int64(code.rawValue))) }
        if let id = suspension.failedEventId { argument.append("failedEventId", .string(id)) }
        argument.append("time", .datetime(BSONDate(suspension.time)))
        argument.append("resumesWhenStorageReturns", .bool(suspension.resumesWhenStorageReturns))
        if let function = trigger.onSuspend {
            await runAlert(function, trigger: trigger, eventId: nil, argument: argument)
        } else if let webhook = trigger.suspensionWebhook {
            let id = "suspension-\(trigger.name)-\(BSONDate(suspension.time).millisecondsSinceEpoch)"
            _ = try? await post(
                argument, to: webhook, trigger: trigger, eventId: id, attempt: 1, source: .triggerErrorHandler)
        }
    }

    /// Runs `function`, a callable, as the system user with one argument, the event whose last attempt just
    /// failed: `{trigger, eventId, attempts, error, event}`.
    private func runFailureHandler(_ function: String, invocation: TriggerInvocation, error: any Error) async {
        var argument: BSONDocument = [
            "trigger": .string(invocation.trigger.name), "eventId": .string(invocation.eventId),
            "attempts": .int64(Int64(invocation.attempt)),
            "error": .string(loaded.scrubber.scrub(String(describing: error))),
        ]
        argument.append("event", .document(invocation.input.document))
        await runAlert(function, trigger: invocation.trigger, eventId: invocation.eventId, argument: argument)
    }

    /// Runs the callable `function` on `argument`, recorded as a run of `trigger`; one that is missing or not
    /// callable is recorded as failed.
    private func runAlert(_ function: String, trigger: TriggerDefinition, eventId: String?, argument: BSONDocument)
        async
    {
        let body: CallableFunction
        if case .callable(let callable)? = registry[function] {
            body = callable
        } else {
            let kind = registry[function]?.kind
            body = { _, _ in
                throw kind.map { FunctionCallError.notCallable(function, kind: $0) } ?? .notFound(function)
            }
        }
        _ = await run(
            Origin(function: function, trigger: trigger.name, eventId: eventId, source: .triggerErrorHandler),
            user: .system,
            runningAsSystem: true, input: [BSON.document(argument)], body)
    }

    /// Posts a trigger's event to its webhook: the change event, the scheduled event (`{triggerName,
    /// scheduledTime}`) or the authentication event, as a function would get it.
    private func post(_ invocation: TriggerInvocation, to webhook: TriggerWebhook) async throws {
        try await post(
            invocation.input.document, to: webhook, trigger: invocation.trigger, eventId: invocation.eventId,
            attempt: invocation.attempt, source: LogSource(trigger: invocation.trigger.kind))
    }

    /// Posts `body` to `webhook` for `trigger`, recorded as a run of `webhook <url>`; throws when the attempt failed.
    private func post(
        _ body: BSONDocument, to webhook: TriggerWebhook, trigger: TriggerDefinition, eventId: String, attempt: Int,
        source: LogSource
    ) async throws {
        let loaded = self.loaded
        var key: [UInt8]?
        if let name = webhook.secretName {
            guard let secret = loaded.webhookSecrets[name] else {
                throw FunctionCallError(
                    code: .functionExecutionError,
                    message: "trigger '\(trigger.name)': the webhook's secret '\(name)' is not set")
            }
            key = WebhookPost.signingKey(secret.exposedValue)
        }
        let request = WebhookPost(
            webhook: webhook, key: key, trigger: trigger.name, eventId: eventId, attempt: attempt,
            body: body.extendedJSONBytes(mode: .relaxed))
        let client = services.http.client
        let origin = Origin(
            function: webhook.runName, trigger: trigger.name, eventId: eventId, attempt: attempt,
            source: source)
        let outcome = await run(origin, user: .system, runningAsSystem: true, loaded: loaded, input: ()) { _, _ in
            try await request.send(with: client)
        }
        switch outcome {
        case .success: return
        case .failure(let message, _): throw FunctionCallError(code: .functionExecutionError, message: message)
        case .timeout(let limit): throw FunctionCallError.timedOut(webhook.runName, after: limit)
        }
    }
}
