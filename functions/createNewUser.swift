import Foundation
import Switchyard

/// A user signed up (the tutorial's `userRegistered` trigger): writes their `product.user` document, registered
/// unless their identity is anonymous (see `UserDocument`), and makes sure their custom user data exists so a
/// device token can be stored at once.
///
/// Like the tutorial's, the document is inserted; one that exists already (a redelivered event) is left as it is,
/// favourites and all.
func createNewUser(_ event: AuthEvent, _ context: FunctionContext) async throws {
    guard event.user.kind == .normal, !event.user.id.isEmpty else {
        throw BooksAppError("createNewUser: the \(event.operationType.rawValue) event carries no user id")
    }
    let collections = try BooksAppCollections(context)
    let user = UserDocument(event.user, identity: event.user.identities.first)
    let inserted = try await collections.insertUserIfMissing(user)
    try await collections.ensureUserData(userId: user.userId, time: BSONDate(event.time))
    if inserted {
        context.log("added the user document of \(user.userId) (registered: \(user.registered))")
    }
}
