import Foundation
import Switchyard

/// Every few minutes: sends again the queued notifications still unprocessed that were queued at least
/// `retryAfterMinutes` before the scheduled time and have had fewer than `maxNotificationAttempts` attempts (an
/// entry without `attempts`, as the tutorial writes them, has had none), oldest first, at most `retryBatchSize`
/// per run.
///
/// The queue's index on `{processed: 1, date: 1}` finds them: its entries of `processed: false` come in `date`
/// order, so the find reads the oldest unprocessed entries and stops at the batch. `triggers.yaml` declares it
/// under `indexes:`, so the app makes it when it opens, over a queue still small, rather than the first run
/// making it over whatever backlog it meets. The find asks for no sort, as the store sorts in memory after
/// reading every match: with a sort, each run read the whole backlog (145 s over 900,000 queued entries).
func retryUnprocessedNotifications(_ event: ScheduledEvent, _ context: FunctionContext) async throws {
    let queue = try NotificationQueue(context)
    let minutes = try context.values.requiredPositiveNumber("retryAfterMinutes")
    let cutoff = BSONDate(event.scheduledTime.addingTimeInterval(-minutes * 60))
    let due = try await queue.collections.notificationQueue.find(
        [
            "processed": false, "attempts": ["$not": ["$gte": .int64(Int64(queue.maxAttempts))]],
            "date": ["$lte": .datetime(cutoff)],
        ], options: FindOptions(projection: ["_id": 1], limit: retryBatchSize)
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
