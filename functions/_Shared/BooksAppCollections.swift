import BSON
import DocumentStore
import Switchyard

/// Where the example app keeps its data: books and the notification queue in `product`, the users' custom
/// data where the values `userDataDatabase` / `userDataCollection` say (the collection `triggers.yaml` names
/// as custom user data).
struct BooksAppCollections {
    static let database = "product"
    static let booksCollection = "book"
    static let notificationQueueCollection = "pushNotification"

    let books: DocumentCollection
    /// `product.pushNotification`: one document per user and book change; see `QueuedNotification`.
    let notificationQueue: DocumentCollection
    /// One document per user: `{userId, FCMToken: [String], favoriteBooks: [book _id], createdAt}`.
    let userData: DocumentCollection

    init(_ context: FunctionContext) throws {
        let mongodb = try context.services.mongodb()
        let product = mongodb.db(Self.database)
        books = product.collection(Self.booksCollection)
        notificationQueue = product.collection(Self.notificationQueueCollection)
        let database = try context.values.requiredString("userDataDatabase")
        let collection = try context.values.requiredString("userDataCollection")
        userData = mongodb.db(database).collection(collection)
    }
}
