import Switchyard

/// Where the example app keeps its data, the tutorial's collections: books, users and the notification queue in
/// `product`, the users' custom data where the values `userDataDatabase` / `userDataCollection` say (the
/// collection `triggers.yaml` names as custom user data, `product.customUserData`).
struct BooksAppCollections {
    static let database = "product"
    static let booksCollection = "book"
    static let usersCollection = "user"
    static let notificationQueueCollection = "pushNotification"

    /// `product.book`: Google Books volumes (see `Book`).
    let books: DocumentCollection
    /// `product.user`: one document per user, `{_id: user id, _partition, userName, userPreferences: {displayName},
    /// providerType: {id, provider_type}, registered, favoriteBooks: [book _id]}` (see `UserDocument`).
    let users: DocumentCollection
    /// `product.pushNotification`: one entry per user and book change (see `NotificationQueue`).
    let notificationQueue: DocumentCollection
    /// The custom user data: one document per user, `{userId, FCMToken: [String], color, fullImage, createdAt}`.
    let userData: DocumentCollection

    init(_ context: FunctionContext) throws {
        let mongodb = try context.services.mongodb()
        let product = mongodb.db(Self.database)
        books = product.collection(Self.booksCollection)
        users = product.collection(Self.usersCollection)
        notificationQueue = product.collection(Self.notificationQueueCollection)
        let database = try context.values.requiredString("userDataDatabase")
        let collection = try context.values.requiredString("userDataCollection")
        userData = mongodb.db(database).collection(collection)
    }

    /// Inserts the user's `product.user` document, in the tutorial's field order, unless they have one; returns
    /// whether it was inserted. A redelivered event finds the document and leaves it (and its favourites) alone.
    func insertUserIfMissing(_ user: UserDocument) async throws -> Bool {
        var document: BSONDocument = ["_id": .string(user.userId)]
        for (key, value) in user.newDocument { document.append(key, value) }
        do {
            try await users.insertOne(document)
            return true
        } catch let error as StoreError where error.code == .duplicateKey {
            return false
        }
    }

    /// Makes sure the user has a custom user data document, with the tutorial's defaults for its client's display
    /// settings (`color`, `fullImage`) and no tokens yet; an existing document is left as it is.
    func ensureUserData(userId: String, time: BSONDate) async throws {
        try await userData.updateOne(
            ["userId": .string(userId)],
            [
                "$setOnInsert": [
                    "color": "#000000FF", "fullImage": true, "FCMToken": [], "createdAt": .datetime(time),
                ]
            ], upsert: true)
    }
}
