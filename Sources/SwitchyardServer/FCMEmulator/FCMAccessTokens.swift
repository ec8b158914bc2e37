import Synchronization

/// The OAuth2 access tokens the emulator's token endpoint issued, in memory: a restart forgets them, and
/// clients then get 401 and fetch a new one, as they do when Google's expire.
final class FCMAccessTokens: Sendable {
    /// Who a token was issued to.
    struct Grant: Sendable, Equatable {
        /// The service account (`iss` of the assertion).
        var serviceAccount: String
        /// The project a service account's address names (`name@<project>.iam.gserviceaccount.com`); nil for
        /// other addresses, whose tokens may be used on the emulator's project.
        var project: String? {
            let suffix = ".iam.gserviceaccount.com"
            guard serviceAccount.hasSuffix(suffix), let at = serviceAccount.lastIndex(of: "@") else { return nil }
            let project = serviceAccount[serviceAccount.index(after: at)...].dropLast(suffix.count)
            return project.isEmpty ? nil : String(project)
        }
    }

    enum Check: Equatable {
        case valid(Grant)
        case expired
        case unknown
    }

    let lifetime: Duration
    private let clock: @Sendable () -> ContinuousClock.Instant
    private let issued = Mutex<[String: (grant: Grant, expires: ContinuousClock.Instant)]>([:])

    init(lifetime: Duration = .seconds(3600), clock: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.lifetime = lifetime
        self.clock = clock
    }

    /// A new opaque token, shaped like Google's (`ya29.` and 64 random URL-safe characters).
    func issue(to serviceAccount: String) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var generator = SystemRandomNumberGenerator()
        let token = "ya29." + String((0..<64).map { _ in alphabet[Int(generator.next() % 64)] })
        let now = clock()
        issued.withLock { issued in
            // Expired tokens are forgotten as new ones are issued, so the table stays as small as the live set.
            if issued.count >= 64 { issued = issued.filter { $0.value.expires > now } }
            issued[token] = (Grant(serviceAccount: serviceAccount), now + lifetime)
        }
        return token
    }

    func check(_ token: String) -> Check {
        guard let entry = issued.withLock({ $0[token] }) else { return .unknown }
        return entry.expires > clock() ? .valid(entry.grant) : .expired
    }
}
