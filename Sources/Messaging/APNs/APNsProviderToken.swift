import BSON
import Foundation
import Synchronization

/// The ES256 JWT APNs authenticates a provider by: `{"alg":"ES256","kid":keyId}` / `{"iss":teamId,"iat":…}`.
/// Apple refuses tokens older than an hour and throttles providers that make them more often than every 20
/// minutes, so one token is reused for `lifetime` (kept between 20 and 60 minutes).
final class APNsProviderToken: Sendable {
    let keyId: String
    let teamId: String
    let key: SigningKey
    let lifetime: TimeInterval
    private let now: @Sendable () -> Date
    private let current = Mutex<(token: String, issuedAt: Date)?>(nil)

    init(keyId: String, teamId: String, key: SigningKey, lifetime: Duration, now: @escaping @Sendable () -> Date) {
        self.keyId = keyId
        self.teamId = teamId
        self.key = key
        self.lifetime = min(max(RetryPolicy.seconds(lifetime), 20 * 60), 60 * 60 - 60)
        self.now = now
    }

    /// The current token, made anew when none is younger than `lifetime`.
    func token() throws(CredentialError) -> String {
        let date = now()
        if let cached = current.withLock({ $0 }), date.timeIntervalSince(cached.issuedAt) < lifetime {
            return cached.token
        }
        let claims: BSONDocument = ["iss": .string(teamId), "iat": .int64(Int64(date.timeIntervalSince1970))]
        let fresh = try JSONWebToken.sign(claims: claims, keyId: keyId, key: key, type: nil)
        current.withLock { $0 = (fresh, date) }
        return fresh
    }

    /// APNs called `token` expired: drop it (unless another sender already replaced it).
    func expire(_ token: String) {
        current.withLock { if $0?.token == token { $0 = nil } }
    }
}
