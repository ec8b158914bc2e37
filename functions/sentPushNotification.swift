import Switchyard

/// A notification was queued (the tutorial's `onSentPushNotification` trigger): multicasts it to the entry's
/// tokens and marks it `processed` (see `NotificationQueue` for the message and what is recorded on the entry).
///
/// A failed send does not throw: the entry stays `processed: false` with `attempts` and `lastError`, and the
/// scheduled `retryUnprocessedNotifications` sends it again after `retryAfterMinutes`. The queue document is the
/// durable record of what is left to send, so one mechanism retries every failure, whether FCM is down for
/// seconds or hours; the trigger's own retries are left for failures of the function itself (the store).
func sentPushNotification(_ event: ChangeEvent, _ context: FunctionContext) async throws {
    guard let id = event.documentKey?["_id"] ?? event.fullDocument?["_id"] else {
        throw BooksAppError("sentPushNotification: the \(event.operationType.rawValue) event has no documentKey._id")
    }
    try await NotificationQueue(context).deliver(id: id)
}
