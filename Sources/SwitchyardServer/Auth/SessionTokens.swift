import BSON
import Foundation
import Switchyard

/// Issues and checks the client API's tokens: HS256 JWTs signed with the data directory's key.
///
/// An access token (30 minutes by default) carries `sub` (the user id), `typ: "access"`, `aud` (the app id),
/// `sid` (the session), `iat`, `exp` and, when the app has custom user data, `user_data`. A refresh token (60
/// days) carries the same minus `user_data`, with `typ: "refresh"`. `authenticate(accessToken:)` also checks that
/// the session is live and the user still exists, so logging out or deleting a user ends their tokens at once.
package final class SessionTokens: Sendable {
    package enum Kind: String, Sendable {
        case access, refresh
    }

    /// What a verified token says.
    package struct Claims: Sendable, Equatable {
        package var userId: String
        package var sessionId: String
        package var kind: Kind
        package var issuedAt: Date
        package var expiresAt: Date
        /// The custom user data the token was issued with (access tokens only).
        package var customData: BSONDocument
    }

    /// A request's caller after its access token checked out. A class: the same caller serves every request
    /// with the token (see `callers`), and handing it on costs one reference count instead of one per field.
    package final class Caller: Sendable {
        package let user: UserRecord
        package let claims: Claims
        let session: UserSession
        /// The caller as a function sees it (custom data is read again by `SwitchyardApp.call`).
        package let functionUser: FunctionUser

        init(user: UserRecord, claims: Claims, session: UserSession) {
            self.user = user
            self.claims = claims
            self.session = session
            functionUser = user.functionUser(customData: claims.customData)
        }
    }

    static let issuer = "switchyard"

    let key: SigningKey
    let appId: String
    let accessLifetime: TimeInterval
    let users: UserDirectory
    /// Tokens that verified, with their claims. Verifying is a function of the token, the key and the app id
    /// alone (all fixed here), so a token seen again skips the HMAC and the JSON; the expiry and the session
    /// are still checked at every use. Forged and malformed tokens are never kept. Every request reads it,
    /// few write it: readers share the lock.
    private let verified = ReadMostly<[TokenKey: VerifiedClaims]>([:])
    static let verifiedCapacity = 1024

    /// Claims in a box: a lookup under the lock costs one retain.
    private final class VerifiedClaims: Sendable {
        let claims: Claims
        init(claims: Claims) { self.claims = claims }
    }

    /// Callers whose access token checked out, with the users and sessions collections' stamp from before
    /// their session and user were read: while neither collection has been written since, the session and the
    /// user are what they were, so a request with the token needs one lookup (its expiry and its session's
    /// are still checked at every use). Any write to either collection (a logout, a revoked session, a deleted
    /// user, a login elsewhere) makes the next request read both again.
    private let callers = ReadMostly<[TokenKey: KeptCaller]>([:])

    private final class KeptCaller: Sendable {
        let caller: Caller
        let stamp: UserDirectory.Stamp
        init(caller: Caller, stamp: UserDirectory.Stamp) {
            self.caller = caller
            self.stamp = stamp
        }
    }

    init(key: SigningKey, appId: String, accessLifetime: TimeInterval, users: UserDirectory) {
        self.key = key
        self.appId = appId
        self.accessLifetime = accessLifetime
        self.users = users
    }

    // MARK: Issuing

    func accessToken(for userId: String, session: UserSession, customData: BSONDocument) -> String {
        let issued = users.now()
        var claims = baseClaims(.access, userId: userId, sessionId: session.id, issued: issued)
        claims.append("exp", .int64(Self.seconds(issued.addingTimeInterval(accessLifetime))))
        claims.append("baas_device_id", .string(session.deviceId))
        if !customData.isEmpty { claims.append("user_data", .document(customData)) }
        return JSONWebToken.sign(claims, key: key)
    }

    func refreshToken(for session: UserSession) -> String {
        var claims = baseClaims(.refresh, userId: session.userId, sessionId: session.id, issued: users.now())
        claims.append("exp", .int64(Self.seconds(session.expiresAt)))
        return JSONWebToken.sign(claims, key: key)
    }

    private func baseClaims(_ kind: Kind, userId: String, sessionId: String, issued: Date) -> BSONDocument {
        [
            "iss": .string(Self.issuer), "aud": .string(appId), "sub": .string(userId), "typ": .string(kind.rawValue),
            "sid": .string(sessionId), "iat": .int64(Self.seconds(issued)),
        ]
    }

    // MARK: Checking

    /// The claims of a token this server signed for this app, of the given kind, not expired. Stateless: it does
    /// not look at the session (see `authenticate(accessToken:)`).
    /// - Throws: `APIError` 401 `InvalidSession`.
    package func verify(_ token: String, as kind: Kind) throws(APIError) -> Claims {
        let claims: Claims
        if let kept = verified.read({ $0[TokenKey(token: token)] })?.claims {
            // It verified before: only what a token's own checks say for this use is left (its kind, its expiry).
            guard kept.kind == kind else {
                throw .invalidSession("expected an \(kind.rawValue) token, got \(kept.kind.rawValue) token")
            }
            claims = kept
        } else {
            claims = try verifiedClaims(token, as: kind)
            verified.write { verified in
                if verified.count >= Self.verifiedCapacity { verified.removeAll(keepingCapacity: true) }
                verified[TokenKey(token: token)] = VerifiedClaims(claims: claims)
            }
        }
        try Self.checkExpiry(claims.kind, expiresAt: claims.expiresAt, at: users.now())
        return claims
    }

    /// Takes the two fields it reads rather than the claims: a kept caller's claims would be copied, with a
    /// reference count for each of their strings and documents, at every request.
    private static func checkExpiry(_ kind: Kind, expiresAt: Date, at now: Date) throws(APIError) {
        guard now < expiresAt else { throw .invalidSession("the \(kind.rawValue) token expired") }
    }

    /// Everything `verify` checks but the expiry, from the token itself.
    private func verifiedClaims(_ token: String, as kind: Kind) throws(APIError) -> Claims {
        let claims: BSONDocument
        do {
            claims = try JSONWebToken.verifiedClaims(token, key: key)
        } catch {
            throw .invalidSession(error.reason)
        }
        guard claims["aud"]?.stringValue == appId else {
            throw .invalidSession("the token was issued for another app")
        }
        guard claims["typ"]?.stringValue == kind.rawValue else {
            throw .invalidSession("expected an \(kind.rawValue) token, got \(claims["typ"]?.stringValue ?? "no") token")
        }
        guard let userId = claims["sub"]?.stringValue, let sessionId = claims["sid"]?.stringValue,
            let issued = claims["iat"]?.int64Value, let expires = claims["exp"]?.int64Value
        else { throw .invalidSession("the token lacks sub, sid, iat or exp") }
        return Claims(
            userId: userId, sessionId: sessionId, kind: kind,
            issuedAt: Date(timeIntervalSince1970: TimeInterval(issued)),
            expiresAt: Date(timeIntervalSince1970: TimeInterval(expires)),
            customData: claims["user_data"]?.documentValue ?? [:])
    }

    /// The caller of a request bearing `accessToken`: a valid access token whose session is live and whose user
    /// exists.
    /// - Throws: `APIError` 401 `InvalidSession` (missing, malformed, forged, expired, revoked, wrong kind or app).
    nonisolated(nonsending) package func authenticate(accessToken: String?) async throws -> Caller {
        if let token = accessToken, let caller = try keptCaller(token[...]) { return caller }
        return try await verifyAndKeep(accessToken)
    }

    /// The caller kept for `token`, while no user or session has changed since it was kept. Synchronous: the
    /// usual case then allocates no frame for waiting it never does.
    func keptCaller(_ token: Substring) throws -> Caller? {
        guard let kept = callers.read({ $0[TokenKey(token: token)] }), kept.stamp == users.stamp else { return nil }
        let caller = kept.caller
        let now = users.now()
        try Self.checkExpiry(caller.claims.kind, expiresAt: caller.claims.expiresAt, at: now)
        guard caller.session.isLive(at: now) else { throw APIError.sessionEnded }
        return caller
    }

    /// Verifies the token against the users and sessions and keeps its caller.
    @inline(never)
    private func verifyAndKeep(_ accessToken: String?) async throws -> Caller {
        guard let token = accessToken else { return try await caller(bearing: nil, as: .access) }
        let stamp = users.stamp
        let caller = try await caller(bearing: token, as: .access)
        callers.write { callers in
            if callers.count >= Self.verifiedCapacity { callers.removeAll(keepingCapacity: true) }
            callers[TokenKey(token: token)] = KeptCaller(caller: caller, stamp: stamp)
        }
        return caller
    }

    /// The same for a refresh token (`POST` / `DELETE /auth/session`).
    func authenticate(refreshToken: String?) async throws -> Caller {
        try await caller(bearing: refreshToken, as: .refresh)
    }

    private func caller(bearing token: String?, as kind: Kind) async throws -> Caller {
        guard let token else {
            throw APIError.invalidSession("the request has no 'Authorization: Bearer <\(kind.rawValue) token>' header")
        }
        let claims = try verify(token, as: kind)
        guard let session = try await users.liveSession(id: claims.sessionId, userId: claims.userId) else {
            throw APIError.sessionEnded
        }
        guard let user = try await users.user(id: claims.userId) else {
            throw APIError.invalidSession("the token's user no longer exists")
        }
        return Caller(user: user, claims: claims, session: session)
    }

    private static func seconds(_ date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down))
    }
}

extension APIError {
    /// 401 `InvalidSession`: the Realm SDKs refresh their access token (or log the user out) on it.
    static func invalidSession(_ reason: String) -> APIError {
        APIError(status: 401, code: "InvalidSession", message: "invalid session: \(reason)")
    }

    static var sessionEnded: APIError { .invalidSession("the session has ended (logged out, expired or user deleted)") }
}
