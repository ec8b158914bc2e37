import BSON
import Foundation
import Switchyard

/// Makes sure a user who signs up or logs in has a custom user data document:
/// `{userId, FCMToken: [], favoriteBooks: [], createdAt}`. Only a missing document is written (`$setOnInsert`),
/// so logging in again leaves tokens and favourites as they are.
func createUserData(_ event: AuthEvent, _ context: FunctionContext) async throws {
    guard event.user.kind == .normal, !event.user.id.isEmpty else {
        throw BooksAppError("createUserData: the \(event.operationType.rawValue) event carries no user id")
    }
    let userData = try BooksAppCollections(context).userData
    let result = try await userData.updateOne(
        ["userId": .string(event.user.id)],
        ["$setOnInsert": ["FCMToken": [], "favoriteBooks": [], "createdAt": .datetime(BSONDate(event.time))]],
        upsert: true)
    if result.upsertedId != nil { context.log("created the user data of \(event.user.id)") }
}
