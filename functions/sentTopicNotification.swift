import Switchyard

/// Tells everyone subscribed to the books topic (the value `booksTopic`) that a book was added or deleted, in the
/// tutorial's words: "New book added", "<title> has been added to the list", or "Book deleted", "<title> has been
/// deleted from the list" with the title from the pre-image. An added book's cover
/// (`volumeInfo.imageLinks.smallThumbnail`) is the notification's image (`apns.fcm_options.image`, APNs
/// `mutable-content: 1`, and Android's image).
///
/// Added to the tutorial's message (seed 002's typed notifications): `data.type` is `book_added` or
/// `book_deleted`, `data.bookId` the book's id, which is also the collapse and thread id.
func sentTopicNotification(_ event: ChangeEvent, _ context: FunctionContext) async throws {
    let topic = try context.values.requiredString("booksTopic")
    let bookId = event.documentKey?["_id"] ?? event.fullDocument?["_id"] ?? event.fullDocumentBeforeChange?["_id"]
    let notification: PortableNotification
    switch event.operationType {
    case .insert:
        let book = Book(document: event.fullDocument ?? [:])
        notification = PortableNotification(
            title: "New book added", body: "\(book.title ?? "A book") has been added to the list", image: book.cover,
            type: "book_added")
    case .delete:
        // Pre-images are on for this trigger; without one (a collection created before) the title is unknown.
        let book = Book(document: event.fullDocumentBeforeChange ?? [:])
        notification = PortableNotification(
            title: "Book deleted", body: "\(book.title ?? "A book") has been deleted from the list",
            type: "book_deleted")
    default:
        context.log("sentTopicNotification ignores \(event.operationType.rawValue) events")
        return
    }
    var message = notification
    if let bookId {
        let text = bookId.identifierText
        message.data["bookId"] = text
        if text.utf8.count <= 64 { message.collapseId = text }
    }
    let name = try await context.services.messaging.send(message.message(to: .topic(topic)))
    context.log("sent \(message.type ?? "") for book \(bookId?.identifierText ?? "?") to topic \(topic): \(name)")
}
