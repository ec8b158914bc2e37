import Foundation
import Switchyard

/// A book changed (the tutorial's `favouriteUserBookUpdated` trigger): queues one entry in
/// `product.pushNotification` for each registered user who has the book among their `favoriteBooks` and has a
/// device token in their custom user data. `sentPushNotification` sends them.
///
/// An entry holds the tutorial's fields, `{token: [FCM tokens], date, processed: false, changes:
/// updateDescription.updatedFields}`, and adds `userId`, `bookId`, `title` and `image` (the book's as it is now,
/// for updates that did not change them) and `attempts` for the retries. Its `_id` is the change event's resume
/// token and the user id, so a redelivered event (the trigger delivers at least once) finds its entries already
/// queued instead of queueing them twice.
func onBookUpdated(_ event: ChangeEvent, _ context: FunctionContext) async throws {
    guard let bookId = event.documentKey?["_id"] else {
        throw BooksAppError("onBookUpdated: the \(event.operationType.rawValue) event has no documentKey._id")
    }
    let collections = try BooksAppCollections(context)
    let readers = try await collections.users.aggregate(
        favouriteReaders(of: bookId, userData: collections.userData.name))
    let recipients = readers.compactMap { reader -> (userId: String, tokens: [BSON])? in
        guard let userId = reader["userId"]?.stringValue else { return nil }
        let tokens = reader["FCMToken"]?.arrayValue?.filter { $0.stringValue?.isEmpty == false } ?? []
        return tokens.isEmpty ? nil : (userId, tokens)
    }
    guard !recipients.isEmpty else { return }

    let changes = event.updateDescription?.updatedFields ?? [:]
    var current = event.fullDocument
    if current == nil { current = try await collections.books.findOne(["_id": bookId]) }
    let changed = Book(document: changes)
    let book = Book(document: current ?? [:])
    var details: BSONDocument = ["bookId": bookId]
    if let title = changed.title ?? book.title { details.append("title", .string(title)) }
    if let image = changed.cover ?? book.cover { details.append("image", .string(image)) }
    let date = BSON.datetime(BSONDate(Date()))
    let entries = recipients.map { recipient -> BSONDocument in
        var entry: BSONDocument = [
            "_id": .string("\(event.id.data)-\(recipient.userId)"), "token": .array(recipient.tokens), "date": date,
            "processed": false, "changes": .document(changes), "userId": .string(recipient.userId),
        ]
        for (key, value) in details { entry.append(key, value) }
        entry.append("attempts", 0)
        return entry
    }
    var queued = entries.count
    do {
        try await collections.notificationQueue.insertMany(entries, ordered: false)
    } catch let error as BulkWriteError
        where error.writeErrors.allSatisfy({ $0.code == .duplicateKey })
    {
        queued -= error.writeErrors.count
        context.log("\(error.writeErrors.count) notification(s) were queued by an earlier delivery of this event")
    }
    context.log("queued \(queued) notification(s) for book \(bookId.identifierText)")
}

/// The tutorial's pipeline on `product.user`: registered users with the book among their favourites, merged with
/// their custom user data (`customUserData` in the tutorial; `$lookup` reads it from `product` too). Its last stage
/// also keeps `userId`, which the entry's `_id` needs.
private func favouriteReaders(of bookId: BSON, userData: String) -> [BSONDocument] {
    [
        ["$match": ["favoriteBooks": bookId, "registered": true]],
        ["$lookup": ["from": .string(userData), "localField": "_id", "foreignField": "userId", "as": "customData"]],
        ["$replaceRoot": ["newRoot": ["$mergeObjects": [["$arrayElemAt": ["$customData", 0]], "$$ROOT"]]]],
        ["$project": ["_id": 0, "FCMToken": 1, "userId": 1]],
    ]
}
