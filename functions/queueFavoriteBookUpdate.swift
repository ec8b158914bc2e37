import BSON
import DocumentStore
import Foundation
import Switchyard

/// A book changed: queues one notification in `product.pushNotification` for each user who has it among their
/// `favoriteBooks` and has at least one device token. `sendQueuedNotification` sends them.
///
/// Each entry's `_id` is the change event's resume token and the user id, so a redelivered event (the trigger
/// delivers at least once) finds its entries already queued instead of queueing them twice.
func queueFavoriteBookUpdate(_ event: ChangeEvent, _ context: FunctionContext) async throws {
    guard let bookId = event.documentKey?["_id"] else {
        throw BooksAppError("queueFavoriteBookUpdate: the \(event.operationType.rawValue) event has no documentKey._id")
    }
    let collections = try BooksAppCollections(context)
    let subscribers = try await collections.userData.aggregate([
        ["$match": ["favoriteBooks": bookId]],
        ["$project": ["_id": 0, "userId": 1, "tokens": "$FCMToken"]],
        ["$match": ["userId": ["$type": "string"], "tokens.0": ["$exists": true]]],
    ])
    guard !subscribers.isEmpty else { return }

    var book = event.fullDocument
    if book == nil { book = try await collections.books.findOne(["_id": bookId]) }
    let title = Book(document: book ?? [:]).summary ?? "Book \(bookId.identifierText)"
    let changes = event.updateDescription?.updatedFields ?? [:]
    let date = BSON.datetime(BSONDate(Date()))
    let entries = subscribers.compactMap { subscriber -> BSONDocument? in
        guard let userId = subscriber["userId"]?.stringValue else { return nil }
        let tokens = subscriber["tokens"]?.arrayValue?.filter { $0.stringValue?.isEmpty == false } ?? []
        guard !tokens.isEmpty else { return nil }
        return [
            "_id": .string("\(event.id.data)-\(userId)"), "userId": .string(userId), "tokens": .array(tokens),
            "bookId": bookId, "title": .string(title), "changes": .document(changes), "date": date,
            "processed": false, "attempts": 0,
        ]
    }
    guard !entries.isEmpty else { return }
    var queued = entries.count
    do {
        try await collections.notificationQueue.insertMany(entries, ordered: false)
    } catch let error as BulkWriteError where error.writeErrors.allSatisfy({ $0.code == duplicateKeyCode }) {
        queued -= error.writeErrors.count
        context.log("\(error.writeErrors.count) notification(s) were queued by an earlier delivery of this event")
    }
    context.log("queued \(queued) notification(s) for book \(bookId.identifierText)")
}

/// MongoDB's duplicate key error (E11000).
private let duplicateKeyCode = 11000
