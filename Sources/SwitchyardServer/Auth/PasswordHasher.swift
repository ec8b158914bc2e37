import BSON
import Dispatch

/// Stores email/password credentials as PBKDF2-HMAC-SHA256 with a random 16-byte salt per password, and checks
/// them with a constant-time comparison. Derivation is deliberately slow (`iterations`), so it runs in a
/// `KeyDerivationQueue`, off Swift's cooperative pool and a few at a time.
package struct PasswordHasher: Sendable {
    /// OWASP's recommendation for PBKDF2-HMAC-SHA256.
    package static let defaultIterations = 600_000
    static let saltLength = 16
    static let hashLength = 32

    package var iterations: Int
    package let derivations: KeyDerivationQueue

    package init(
        iterations: Int = PasswordHasher.defaultIterations, derivations: KeyDerivationQueue = KeyDerivationQueue()
    ) {
        self.iterations = max(1, iterations)
        self.derivations = derivations
    }

    func hash(_ password: String) async throws -> PasswordHash {
        let salt = Cryptography.randomBytes(Self.saltLength)
        let iterations = self.iterations
        let hash = try await derive(Array(password.utf8), salt: salt, iterations: iterations)
        return PasswordHash(salt: salt, hash: hash, iterations: iterations)
    }

    /// Whether `password` is the one `stored` was made from.
    func verify(_ password: String, against stored: PasswordHash) async throws -> Bool {
        let derived = try await derive(Array(password.utf8), salt: stored.salt, iterations: stored.iterations)
        return Cryptography.constantTimeEquals(derived, stored.hash)
    }

    /// Spends the same time as a real check, so an unknown email answers as slowly as a wrong password.
    func verifyNothing(_ password: String) async throws {
        _ = try await derive(
            Array(password.utf8), salt: [UInt8](repeating: 0, count: Self.saltLength), iterations: iterations)
    }

    private func derive(_ password: [UInt8], salt: [UInt8], iterations: Int) async throws -> [UInt8] {
        do {
            return try await derivations.run {
                try Cryptography.pbkdf2SHA256(
                    password: password, salt: salt, iterations: iterations, length: Self.hashLength)
            }
        } catch is KeyDerivationQueue.Full {
            throw APIError.tooManyRequests(
                "too many password checks are waiting; try again shortly", retryAfter: .seconds(1))
        }
    }
}

/// A stored password: salt, derived key and the iteration count it was derived with (so raising the default
/// keeps old credentials valid).
struct PasswordHash: Sendable, Equatable {
    var salt: [UInt8]
    var hash: [UInt8]
    var iterations: Int

    static let algorithm = "pbkdf2-hmac-sha256"

    var fields: BSONDocument {
        [
            "algorithm": .string(Self.algorithm), "salt": .binary(BSONBinary(data: salt)),
            "hash": .binary(BSONBinary(data: hash)), "iterations": .int64(Int64(iterations)),
        ]
    }

    init(salt: [UInt8], hash: [UInt8], iterations: Int) {
        self.salt = salt
        self.hash = hash
        self.iterations = iterations
    }

    init?(fields document: BSONDocument) {
        guard document["algorithm"]?.stringValue == Self.algorithm,
            case .binary(let salt) = document["salt"], case .binary(let hash) = document["hash"],
            let iterations = document["iterations"]?.int64Value, iterations > 0, iterations <= Int32.max
        else { return nil }
        self.init(salt: salt.data, hash: hash.data, iterations: Int(iterations))
    }
}
