import BSON
import Foundation

/// A login: what a refresh token names, kept in `local.switchyard_sessions` as
/// `{_id: "<session id>", userId, deviceId, createdAt, expiresAt, revokedAt?}`. Revoking it ends the refresh
/// token and every access token issued under it.
struct UserSession: Sendable, Equatable {
    var id: String
    var userId: String
    var deviceId: String
    var createdAt: Date
    var expiresAt: Date
    var revokedAt: Date?

    var document: BSONDocument {
        var document: BSONDocument = [
            "_id": .string(id), "userId": .string(userId), "deviceId": .string(deviceId),
            "createdAt": .datetime(BSONDate(createdAt)), "expiresAt": .datetime(BSONDate(expiresAt)),
        ]
        if let revokedAt { document.append("revokedAt", .datetime(BSONDate(revokedAt))) }
        return document
    }

    init(id: String, userId: String, deviceId: String, createdAt: Date, expiresAt: Date, revokedAt: Date? = nil) {
        self.id = id
        self.userId = userId
        self.deviceId = deviceId
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
    }

    init?(document: BSONDocument) {
        guard let id = document["_id"]?.stringValue, let userId = document["userId"]?.stringValue,
            case .datetime(let created) = document["createdAt"], case .datetime(let expires) = document["expiresAt"]
        else { return nil }
        var revoked: Date?
        if case .datetime(let date) = document["revokedAt"] { revoked = date.date }
        self.init(
            id: id, userId: userId, deviceId: document["deviceId"]?.stringValue ?? String(repeating: "0", count: 24),
            createdAt: created.date, expiresAt: expires.date, revokedAt: revoked)
    }

    func isLive(at now: Date) -> Bool { revokedAt == nil && now < expiresAt }
}
