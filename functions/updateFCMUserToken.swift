import Foundation
import Switchyard

/// Adds or removes a device's FCM registration token on the calling user's custom user data
/// (`product.customUserData`, `{userId, FCMToken: [String]}`): `updateFCMUserToken(token, "add" | "remove")`, as the
/// tutorial's iOS client calls it. Adding is idempotent (`$addToSet`) and creates the user's document when the
/// authentication triggers have not yet; removing a token the user does not have changes
/// nothing. Returns `{matchedCount, modifiedCount, upsertedCount, upsertedId?}`.
func updateFCMUserToken(_ arguments: [BSON], _ context: FunctionContext) async throws -> BSON {
    guard arguments.count == 2 else {
        throw BooksAppError(
            "updateFCMUserToken takes 2 arguments (token, \"add\" or \"remove\"), got \(arguments.count)")
    }
    guard let token = arguments[0].stringValue, !token.isEmpty, token.utf8.count <= maximumTokenLength else {
        throw BooksAppError(
            "updateFCMUserToken: the token (argument 1) must be a non-empty string of at most \(maximumTokenLength) bytes, not \(arguments[0].extendedJSON(mode: .relaxed))"
        )
    }
    guard let operation = arguments[1].stringValue, operation == "add" || operation == "remove" else {
        throw BooksAppError(
            "updateFCMUserToken: the operation (argument 2) must be \"add\" or \"remove\", not \(arguments[1].extendedJSON(mode: .relaxed))"
        )
    }
    guard context.user.kind == .normal else {
        throw BooksAppError("updateFCMUserToken stores the token of the calling user; call it as a logged-in user")
    }
    let userData = try BooksAppCollections(context).userData
    let filter: BSONDocument = ["userId": .string(context.user.id)]
    let result: UpdateResult
    if operation == "add" {
        result = try await userData.updateOne(
            filter,
            [
                "$addToSet": ["FCMToken": .string(token)],
                "$setOnInsert": ["createdAt": .datetime(BSONDate(Date()))],
            ], upsert: true)
    } else {
        result = try await userData.updateOne(filter, ["$pull": ["FCMToken": .string(token)]])
    }
    var document: BSONDocument = [
        "matchedCount": .int64(Int64(result.matchedCount)), "modifiedCount": .int64(Int64(result.modifiedCount)),
        "upsertedCount": .int64(Int64(result.upsertedCount)),
    ]
    if let id = result.upsertedId { document.append("upsertedId", id) }
    return .document(document)
}

/// FCM tokens are about 160 bytes; anything far longer is not one.
private let maximumTokenLength = 4096
