/// Keeps the time limit of a function that runs in its caller's own task, answering the caller from outside that
/// task when the limit passes first. `switchyard serve` keeps its requests' limits so: a served call then costs one
/// task, not two (see `FunctionDeadline` for callers without a keeper).
public protocol DeadlineKeeper: AnyObject, Sendable {
    /// From now until `release()`, the caller's task runs `call`. If `deadline` passes first, the keeper cancels
    /// the task and answers the caller with what `call.expire()` gives, whatever the task answers later.
    func keep(_ call: ExpiringCall, until deadline: ContinuousClock.Instant)

    /// Ends what `keep` began; false when the call had expired already (its caller is answered for).
    func release() -> Bool
}
