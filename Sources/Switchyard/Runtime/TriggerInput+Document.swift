import BSON

extension TriggerInput {
    /// The event as a document, as a webhook and an error handler get it: the change event, the scheduled event
    /// (`{triggerName, scheduledTime}`) or the authentication event.
    var document: BSONDocument {
        switch self {
        case .database(let event): event.raw
        case .scheduled(let event): event.raw
        case .authentication(let event): event.raw
        }
    }
}
