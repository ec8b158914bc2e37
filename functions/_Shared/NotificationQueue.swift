import BSON
import DocumentStore
import Foundation
import Messaging
import Switchyard

/// Sends the entries of `product.pushNotification`, one per user and book change:
/// `{_id, userId, tokens, bookId, title, changes, date, processed: false, attempts: 0}`.
///
/// Delivery is tracked per device so that nothing is sent twice after it succeeded: tokens FCM accepted go to
/// `deliveredTokens`, tokens the response says to delete (`BatchResponse.tokensToDelete`: unregistered, or not a
/// token at all) to `invalidTokens` (and are pulled from the user's `FCMToken`); a later attempt sends only to the
/// rest. Any other error (per token, or the whole send throwing)
/// leaves `processed: false`, increments `attempts` and records `lastError`; the entry is then retried by the
/// scheduled `retryUnprocessedNotifications`, not by throwing into the trigger's retries (see
/// `sendQueuedNotification`). `processed` becomes true once no token is left to send to (`sentAt` is set when
/// at least one device got it).
///
/// A sender first claims the entry with a short lease (`sendingUntil`, `sendingBy`), so the trigger and the
/// scheduled retry never send the same entry at the same time. A claim made by another run of the app is taken
/// over at once: only one process serves a data directory, so that run died mid-send, and the trigger's
/// redelivery of the entry's insert must not wait out its lease.
struct NotificationQueue {
    static let title = "A favourite book changed"
    static let type = "favorite_book_updated"
    /// How long a claim keeps other senders away; longer than a send takes, short enough that an entry whose
    /// sender died is retried by the next scheduled run.
    static let lease: TimeInterval = 120
    /// FCM's limit on the tokens of one multicast.
    static let multicastLimit = 500
    /// This run of the app, as `sendingBy` records it.
    static let sender = ObjectId()

    let collections: BooksAppCollections
    let messaging: any PushMessaging
    /// Attempts after which an entry is left alone.
    let maxAttempts: Int
    let log: @Sendable (String) -> Void

    init(_ context: FunctionContext) throws {
        collections = try BooksAppCollections(context)
        messaging = context.services.messaging
        maxAttempts = Int(try context.values.requiredPositiveNumber("maxNotificationAttempts"))
        log = { context.log($0) }
    }

    enum Outcome: Equatable {
        /// Every token got the message or was unregistered or invalid.
        case processed
        /// Some tokens are left for a later attempt.
        case failed
        /// Processed already, out of attempts, or being sent by someone else.
        case skipped
    }

    /// Attempts the entry `id` once. Throws only when the store fails; send failures are recorded on the entry.
    @discardableResult
    func deliver(id: BSON, now: Date = Date()) async throws -> Outcome {
        guard let entry = try await claim(id: id, now: now) else { return .skipped }
        let userId = entry["userId"]?.stringValue
        let done = Set(strings(entry["deliveredTokens"]) + strings(entry["invalidTokens"]))
        let pending = orderedUnique(strings(entry["tokens"])).filter { !done.contains($0) }
        let bookId = entry["bookId"] ?? .null

        var delivered: [String] = []
        var stale: [String] = []
        var lastError: String?
        let message = PortableNotification(
            title: Self.title, body: entry["title"]?.stringValue ?? "A book in your favourites was updated",
            type: Self.type, collapseId: collapseId(bookId), data: ["bookId": bookId.identifierText])
        for start in stride(from: 0, to: pending.count, by: Self.multicastLimit) {
            let tokens = Array(pending[start..<min(start + Self.multicastLimit, pending.count)])
            do {
                let response = try await messaging.sendEachForMulticast(message.multicast(to: tokens))
                let toDelete = response.tokensToDelete
                stale.append(contentsOf: toDelete)
                for result in response.results where !toDelete.contains(result.token) {
                    if let error = result.error {
                        lastError = "\(result.token): \(error)"
                    } else {
                        delivered.append(result.token)
                    }
                }
            } catch {
                lastError = "\(error)"
            }
        }

        if let userId, !stale.isEmpty {
            try await collections.userData.updateOne(
                ["userId": .string(userId)], ["$pull": ["FCMToken": ["$in": .array(stale.map(BSON.string))]]])
            log("removed \(stale.count) unregistered or invalid token(s) of user \(userId)")
        }
        let finished = lastError == nil
        var set: BSONDocument = ["lastAttemptAt": .datetime(BSONDate(now))]
        if finished {
            set.append("processed", true)
            if !delivered.isEmpty || !strings(entry["deliveredTokens"]).isEmpty {
                set.append("sentAt", .datetime(BSONDate(now)))
            }
        } else if let lastError {
            set.append("lastError", .string(lastError))
        }
        var update: BSONDocument = [
            "$set": .document(set), "$inc": ["attempts": 1], "$unset": ["sendingUntil": "", "sendingBy": ""],
        ]
        if !delivered.isEmpty || !stale.isEmpty {
            update.append(
                "$addToSet",
                [
                    "deliveredTokens": ["$each": .array(delivered.map(BSON.string))],
                    "invalidTokens": ["$each": .array(stale.map(BSON.string))],
                ])
        }
        try await collections.notificationQueue.updateOne(["_id": id], update)
        if let lastError {
            log(
                "entry \(id.identifierText): \(delivered.count) sent, \(pending.count - delivered.count - stale.count) left for a retry: \(lastError)"
            )
            return .failed
        }
        log("entry \(id.identifierText): sent to \(delivered.count) device(s)")
        return .processed
    }

    /// Marks the entry as being sent, unless it is processed, out of attempts or claimed by another sender.
    private func claim(id: BSON, now: Date) async throws -> BSONDocument? {
        let filter: BSONDocument = [
            "_id": id, "processed": false, "attempts": ["$lt": .int64(Int64(maxAttempts))],
            "$or": [
                ["sendingUntil": ["$exists": false]], ["sendingUntil": ["$lte": .datetime(BSONDate(now))]],
                ["sendingBy": ["$ne": .objectId(Self.sender)]],
            ],
        ]
        let until = BSONDate(now.addingTimeInterval(Self.lease))
        return try await collections.notificationQueue.findOneAndUpdate(
            filter, ["$set": ["sendingUntil": .datetime(until), "sendingBy": .objectId(Self.sender)]],
            options: FindOneAndModifyOptions(returnDocument: .after))
    }

    /// APNs refuses collapse ids over 64 bytes; such books go without one rather than not at all.
    private func collapseId(_ bookId: BSON) -> String? {
        let text = bookId.identifierText
        return text.utf8.count <= 64 ? text : nil
    }

    private func strings(_ value: BSON?) -> [String] {
        value?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    private func orderedUnique(_ values: [String]) -> [String] {
        var seen = Set<String>()
        return values.filter { seen.insert($0).inserted }
    }
}
