import Foundation
import Switchyard

/// Every few minutes: sends again the queued notifications still unprocessed that were queued at least
/// `retryAfterMinutes` before the scheduled time and have had fewer than `maxNotificationAttempts` attempts (an
/// entry without `attempts`, as the tutorial writes them, has had none), oldest first, at most `retryBatchSize`
/// per run.
func retryUnprocessedNotifications(_ event: ScheduledEvent, _ context: FunctionContext) async throws {
    let queue = try NotificationQueue(context)
    let minutes = try context.values.requiredPositiveNumber("retryAfterMinutes")
    let cutoff = BSONDate(event.scheduledTime.addingTimeInterval(-minutes * 60))
    let due = try await queue.collections.notificationQueue.find(
        [
            "processed": false, "attempts": ["$not": ["$gte": .int64(Int64(queue.maxAttempts))]],
            "date": ["$lte": .datetime(cutoff)],
        ], options: FindOptions(projection: ["_id": 1], sort: ["date": 1], limit: retryBatchSize)
    ).toArray()
    var sent = 0
    for entry in due {
        guard let id = entry["_id"] else { continue }
        if try await queue.deliver(id: id) == .processed { sent += 1 }
    }
    if !due.isEmpty { context.log("retried \(due.count) queued notification(s), \(sent) now processed") }
}

/// Bounds one run; what is left waits for the next.
private let retryBatchSize = 500
