import Foundation

/// How much the client API's auth routes take before answering 429 `TooManyRequests` with a `Retry-After`: each
/// password login and registration costs a slow derivation, and each anonymous login a new user. Every client on
/// this machine shares 127.0.0.1, so the defaults leave room for a test suite's logins while stopping a guesser.
package struct AuthLimits: Sendable {
    /// Password logins and registrations from one address.
    package var passwordAttemptsPerAddress: RateLimit
    /// Password logins to one account, counted as they are tried; one that succeeds gives its attempt back, so
    /// only failures use the allowance up.
    package var passwordAttemptsPerAccount: RateLimit
    /// Anonymous users made from one address.
    package var anonymousUsersPerAddress: RateLimit
    /// Addresses (or accounts) each limit remembers at most: memory stays bounded however many there are.
    package var trackedKeys: Int
    /// Password derivations run at once; the others wait their turn.
    package var concurrentKeyDerivations: Int
    /// Derivations that may wait; beyond them a login or registration answers 429 at once.
    package var waitingKeyDerivations: Int

    package init(
        passwordAttemptsPerAddress: RateLimit = RateLimit(burst: 30, interval: .milliseconds(500)),
        passwordAttemptsPerAccount: RateLimit = RateLimit(burst: 10, interval: .seconds(6)),
        anonymousUsersPerAddress: RateLimit = RateLimit(burst: 100, interval: .milliseconds(200)),
        trackedKeys: Int = 10_000,
        concurrentKeyDerivations: Int = max(1, ProcessInfo.processInfo.activeProcessorCount / 2),
        waitingKeyDerivations: Int = 64
    ) {
        self.passwordAttemptsPerAddress = passwordAttemptsPerAddress
        self.passwordAttemptsPerAccount = passwordAttemptsPerAccount
        self.anonymousUsersPerAddress = anonymousUsersPerAddress
        self.trackedKeys = trackedKeys
        self.concurrentKeyDerivations = concurrentKeyDerivations
        self.waitingKeyDerivations = waitingKeyDerivations
    }
}
