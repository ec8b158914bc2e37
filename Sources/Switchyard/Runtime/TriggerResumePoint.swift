/// Where a suspended trigger picks up again (App Services' "resume with or without the resume token").
package enum TriggerResumePoint: Sendable, Equatable {
    /// From the saved resume token: the event that failed is delivered again, then everything after it.
    case savedToken
    /// Just after the event that failed (skipping only it); like `savedToken` when no event failed.
    case afterFailedEvent
    /// From the end of the change log now (scheduled triggers: from the next fire time): nothing that
    /// happened while suspended is delivered.
    case now
}
