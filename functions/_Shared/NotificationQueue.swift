import Foundation
import Switchyard

/// Sends the entries of `product.pushNotification`, the tutorial's `{token: [FCM tokens], date, processed: false,
/// changes}` plus what `onBookUpdated` adds (`userId`, `bookId`, `title`, `image`, `attempts`). The message is the
/// tutorial's: "<title> changed", "One of your favorites changed", with the cover as its image; the title and cover
/// come from `changes` (`volumeInfo.title`, `volumeInfo.imageLinks.smallThumbnail`), else from the entry's `title`
/// and `image`, else from the book as it is now, so an update that did not touch them still names the book.
/// Added from seed 002: `data.type` is `favorite_book_updated`, and the book's id is `data.bookId` and the
/// collapse id. An entry written by hand, with the tutorial's fields only, is sent the same way.
///
/// Delivery is tracked per device so that nothing is sent twice after it succeeded: tokens FCM accepted go to
/// `deliveredTokens`, tokens the response says to delete (`BatchResponse.tokensToDelete`: unregistered, or not a
/// token at all) to `invalidTokens` (and are pulled from every custom user data `FCMToken`); a later attempt sends
/// only to the rest. Any other error (per token, or the whole send throwing) leaves `processed: false`, increments
/// `attempts` and records `lastError`; the entry is then retried by the scheduled `retryUnprocessedNotifications`,
/// not by throwing into the trigger's retries (see `sentPushNotification`). `processed` becomes true once no
/// token is left to send to (`sentAt` is set when at least one device got it).
///
/// A sender first claims the entry with a short lease (`sendingUntil`, `sendingBy`), so the trigger and the
/// scheduled retry never send the same entry at the same time. A claim made by another run of the app is taken
/// over at once: only one process serves a data directory, so that run died mid-send, and the trigger's
/// redelivery of the entry's insert must not wait out its lease.
struct NotificationQueue {
    static let body = "One of your favorites changed"
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
        let done = Set(strings(entry["deliveredTokens"]) + strings(entry["invalidTokens"]))
        let pending = orderedUnique(strings(entry["token"])).filter { !done.contains($0) }
        let message = try await notification(for: entry)

        var delivered: [String] = []
        var stale: [String] = []
        var lastError: String?
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

        if !stale.isEmpty {
            let tokens = BSON.array(stale.map(BSON.string))
            try await collections.userData.updateMany(
                ["FCMToken": ["$in": tokens]], ["$pull": ["FCMToken": ["$in": tokens]]])
            log("removed \(stale.count) unregistered or invalid token(s)")
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
            "_id": id, "processed": false, "attempts": ["$not": ["$gte": .int64(Int64(maxAttempts))]],
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

    /// The tutorial's message for the entry, with the type, collapse id and book id added.
    private func notification(for entry: BSONDocument) async throws -> PortableNotification {
        let changed = Book(document: entry["changes"]?.documentValue ?? [:])
        var title = changed.title ?? entry["title"]?.stringValue
        var image = changed.cover ?? entry["image"]?.stringValue
        let bookId = entry["bookId"]
        if title == nil, let bookId, let book = try await collections.books.findOne(["_id": bookId]) {
            title = Book(document: book).title
            image = image ?? Book(document: book).cover
        }
        var message = PortableNotification(
            title: "\(title ?? "A favourite book") changed", body: Self.body, image: image, type: Self.type)
        if let bookId {
            let text = bookId.identifierText
            message.data["bookId"] = text
            // APNs refuses collapse ids over 64 bytes; such books go without one rather than not at all.
            if text.utf8.count <= 64 { message.collapseId = text }
        }
        return message
    }

    private func strings(_ value: BSON?) -> [String] {
        value?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    private func orderedUnique(_ values: [String]) -> [String] {
        var seen = Set<String>()
        return values.filter { seen.insert($0).inserted }
    }
}
