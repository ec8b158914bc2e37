import Switchyard

/// A user was deleted (the `userDeleted` trigger): deletes what the app keeps about them, as App Services leaves
/// to the app (deleting a user deletes neither their custom user data nor anything else the app stored): their
/// custom user data (their device tokens), their `product.user` document (favourites) and their queued
/// notifications, which carry the tokens too. A redelivered event finds nothing left and deletes nothing.
func deleteUserData(_ event: AuthEvent, _ context: FunctionContext) async throws {
    guard !event.user.id.isEmpty else {
        throw BooksAppError("deleteUserData: the \(event.operationType.rawValue) event carries no user id")
    }
    let collections = try BooksAppCollections(context)
    let userId = BSON.string(event.user.id)
    let userData = try await collections.userData.deleteMany(["userId": userId])
    let user = try await collections.users.deleteOne(["_id": userId])
    let queued = try await collections.notificationQueue.deleteMany(["userId": userId])
    context.log(
        "deleted the data of user \(event.user.id): \(userData.deletedCount) custom user data, \(user.deletedCount) user, \(queued.deletedCount) queued notification(s)"
    )
}
