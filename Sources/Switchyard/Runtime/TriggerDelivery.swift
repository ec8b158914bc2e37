/// How one event's delivery ended.
enum DeliveryOutcome: Sendable {
    case delivered(attempts: Int)
    /// Every attempt failed; `error` is the last one's.
    case failed(error: any Error, attempts: Int)
    /// The runtime stopped between attempts; the event was not finished.
    case interrupted
}

/// Runs a trigger's function on one event, retrying failures with backoff.
struct TriggerDelivery: Sendable {
    let handler: TriggerHandler
    let retry: RetryPolicy

    /// Attempts are numbered from `firstAttempt` (a redelivery continues a dead letter's count), and
    /// `retry.maxAttempts` of them are made at most. Each attempt runs in a task of its own, so stopping
    /// the runtime (cancelling the caller) lets a running function finish instead of cancelling it.
    func deliver(
        _ trigger: TriggerDefinition, input: TriggerInput, eventId: String, firstAttempt: Int = 1,
        onFailedAttempt: (any Error) -> Void
    ) async -> DeliveryOutcome {
        let lastAttempt = firstAttempt + max(1, retry.maxAttempts) - 1
        var attempt = firstAttempt
        let handler = self.handler
        while true {
            let invocation = TriggerInvocation(trigger: trigger, input: input, eventId: eventId, attempt: attempt)
            switch await Task(operation: { try await handler(invocation) }).result {
            case .success:
                return .delivered(attempts: attempt)
            case .failure(let error):
                onFailedAttempt(error)
                if attempt >= lastAttempt { return .failed(error: error, attempts: attempt) }
            }
            do {
                try await Task.sleep(for: retry.backoff(afterAttempt: attempt - firstAttempt + 1))
            } catch {
                return .interrupted
            }
            if Task.isCancelled { return .interrupted }
            attempt += 1
        }
    }
}
