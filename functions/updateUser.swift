import Foundation
import Switchyard

/// A user logged in (the tutorial's `updateUser` trigger): a user whose latest identity is email/password becomes
/// registered, with their email as `userName` and `displayName`; an anonymous login leaves a registered user as
/// they are. A user without a `product.user` or custom user data document (one who signed up before the app had
/// these triggers) gets them. Favourites and tokens are never touched.
func updateUser(_ event: AuthEvent, _ context: FunctionContext) async throws {
    guard event.user.kind == .normal, !event.user.id.isEmpty else {
        throw BooksAppError("updateUser: the \(event.operationType.rawValue) event carries no user id")
    }
    let collections = try BooksAppCollections(context)
    let user = UserDocument(event.user, identity: event.user.identities.last)
    if user.registered {
        let result = try await collections.users.updateOne(
            ["_id": .string(user.userId)],
            ["$set": .document(user.profile), "$setOnInsert": .document(user.initialFields)], upsert: true)
        if result.modifiedCount > 0 || result.upsertedId != nil { context.log("registered user \(user.userId)") }
    } else {
        _ = try await collections.insertUserIfMissing(user)
    }
    try await collections.ensureUserData(userId: user.userId, time: BSONDate(event.time))
}
