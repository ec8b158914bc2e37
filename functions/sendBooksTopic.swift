import BSON
import DocumentStore
import Messaging
import Switchyard

/// Tells everyone subscribed to the books topic (the value `booksTopic`) that a book was added or deleted:
/// "New book added" with the book's title and authors, or "Book deleted" with the title from the pre-image.
/// A book with a thumbnail sends it as the notification's image (`fcm_options.image` and APNs
/// `mutable-content`); the book's id is the collapse and thread id and `data.bookId`, and `data.type` is
/// `book_added` or `book_deleted`.
func sendBooksTopic(_ event: ChangeEvent, _ context: FunctionContext) async throws {
    let topic = try context.values.requiredString("booksTopic")
    let bookId = event.documentKey?["_id"] ?? event.fullDocument?["_id"] ?? event.fullDocumentBeforeChange?["_id"]
    let notification: PortableNotification
    switch event.operationType {
    case .insert:
        let book = Book(document: event.fullDocument ?? [:])
        notification = PortableNotification(
            title: "New book added", body: book.summary ?? "A new book is in the library", image: book.thumbnail,
            type: "book_added")
    case .delete:
        // Pre-images are on for this trigger; without one (a collection created before) the title is unknown.
        let book = Book(document: event.fullDocumentBeforeChange ?? [:])
        notification = PortableNotification(
            title: "Book deleted", body: book.title ?? "A book was removed from the library", type: "book_deleted")
    default:
        context.log("sendBooksTopic ignores \(event.operationType.rawValue) events")
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
