import Foundation

/// Keeps the auth routes to their `AuthLimits`, per address and per account. Only auth routes consult it: a
/// `functions/call` never does.
final class LoginThrottle: Sendable {
    private let passwordAttempts: RateLimiter
    private let accountAttempts: RateLimiter
    private let anonymousUsers: RateLimiter

    init(limits: AuthLimits) {
        passwordAttempts = RateLimiter(limit: limits.passwordAttemptsPerAddress, capacity: limits.trackedKeys)
        accountAttempts = RateLimiter(limit: limits.passwordAttemptsPerAccount, capacity: limits.trackedKeys)
        anonymousUsers = RateLimiter(limit: limits.anonymousUsersPerAddress, capacity: limits.trackedKeys)
    }

    /// A password login (`account` set) or registration from `address` may go ahead.
    func beginPasswordAttempt(from address: String, account: String?) throws(APIError) {
        do {
            try passwordAttempts.take(address)
        } catch {
            throw APIError.tooManyRequests(
                "too many password attempts from this address; try again later", retryAfter: error.retryAfter)
        }
        guard let account else { return }
        do {
            try accountAttempts.take(Self.key(account))
        } catch {
            throw APIError.tooManyRequests(
                "too many failed logins to this account; try again later", retryAfter: error.retryAfter)
        }
    }

    /// The login to `account` succeeded: its attempt does not count against the account.
    func passwordSucceeded(account: String) {
        accountAttempts.giveBack(Self.key(account))
    }

    /// An anonymous user may be made for `address`.
    func beginAnonymousLogin(from address: String) throws(APIError) {
        do {
            try anonymousUsers.take(address)
        } catch {
            throw APIError.tooManyRequests(
                "too many anonymous logins from this address; try again later", retryAfter: error.retryAfter)
        }
    }

    /// The account as the user directory finds it (trimmed, without case), so that spelling an email another
    /// way reaches the same allowance; a long one is cut (the table's keys stay small).
    private static func key(_ account: String) -> String {
        String(account.trimmingCharacters(in: .whitespaces).lowercased().prefix(320))
    }
}
