import BSON

extension ScheduledEvent {
    /// The event as a document, for functions that pass it on or store it:
    /// `{"triggerName", "scheduledTime"}` (a date).
    package var raw: BSONDocument {
        ["triggerName": .string(triggerName), "scheduledTime": .datetime(BSONDate(scheduledTime))]
    }
}
