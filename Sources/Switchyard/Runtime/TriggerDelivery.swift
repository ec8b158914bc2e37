import Foundation

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
    /// The runner's stop switch: no attempt starts once a stop was requested. A delivery no runtime
    /// stops (a redelivery by request) has one of its own that is never asked.
    var stop = TriggerStop()
    /// Where backoffs are waited out: the runtime's clock, so a test clock moved by hand runs retries too.
    var clock: any TriggerClock = WallClock()
    /// Told of each backoff while it lasts, so `awaitIdle` knows a delivery waits for a time still to come.
    var progress: TriggerProgress?

    /// Makes `invocation` (its first attempt) and retries, numbering attempts on from its `attempt` (a
    /// redelivery continues a dead letter's count); `retry.maxAttempts` of them are made at most. Each
    /// attempt runs inline, in the caller's task: `stop` keeps the runtime from cancelling that task while
    /// a function runs, so stopping lets a running function finish; the backoff between attempts (on `clock`)
    /// ends on cancellation.
    func deliver(_ invocation: consuming TriggerInvocation, onFailedAttempt: (any Error) -> Void) async
        -> DeliveryOutcome
    {
        var invocation = invocation
        let firstAttempt = invocation.attempt
        let lastAttempt = firstAttempt + max(1, retry.maxAttempts) - 1
        let handler = self.handler
        while true {
            // A node that lost the trigger's lease starts no attempt: the next holder delivers the event.
            if progress?.isOwned == false { return .interrupted }
            invocation.isLastAttempt = invocation.attempt >= lastAttempt
            let result = await stop.run { () async -> Result<Void, any Error> in
                do {
                    try await handler(invocation)
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }
            switch result {
            case nil:
                return .interrupted
            case .success?:
                return .delivered(attempts: invocation.attempt)
            case .failure(let error)?:
                onFailedAttempt(error)
                if invocation.attempt >= lastAttempt { return .failed(error: error, attempts: invocation.attempt) }
            }
            let backoff = retry.backoff(afterAttempt: invocation.attempt - firstAttempt + 1)
            let deadline = clock.now().addingTimeInterval(backoff.milliseconds / 1000)
            progress?.backoffStarted(until: deadline)
            do {
                try await clock.sleep(until: deadline)
                progress?.backoffEnded(until: deadline)
            } catch {
                progress?.backoffEnded(until: deadline)
                return .interrupted
            }
            if Task.isCancelled { return .interrupted }
            invocation.attempt += 1
        }
    }
}
